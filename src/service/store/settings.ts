/** Installation-wide key/value settings (e.g. the visitor-token secret). */
import { internalsOf, type Store } from './handle.js';

export async function getSetting(store: Store, key: string): Promise<string | undefined> {
  const row = await internalsOf(store).db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value;
}

/** Inserts the setting unless it exists; returns the stored value (the winner's under a race). */
export async function getOrCreateSetting(store: Store, key: string, create: () => string): Promise<string> {
  const existing = await getSetting(store, key);
  if (existing !== undefined) return existing;
  await internalsOf(store)
    .db.insertInto('settings')
    .values({ key, value: create() })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const stored = await getSetting(store, key);
  if (stored === undefined) throw new Error(`setting ${key} could not be stored`);
  return stored;
}

export async function setSetting(store: Store, key: string, value: string): Promise<void> {
  await internalsOf(store)
    .db.insertInto('settings')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}

/** Inserts the setting unless it exists; true when this call inserted it (it claims `key`). */
export async function claimSetting(store: Store, key: string, value: string): Promise<boolean> {
  const result = await internalsOf(store)
    .db.insertInto('settings')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function deleteSetting(store: Store, key: string): Promise<void> {
  await internalsOf(store).db.deleteFrom('settings').where('key', '=', key).execute();
}
