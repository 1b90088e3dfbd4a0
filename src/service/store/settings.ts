/** Installation-wide key/value settings (e.g. the visitor-token secret). */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export async function getSetting(db: Kysely<Database>, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value;
}

/** Inserts the setting unless it exists; returns the stored value (the winner's under a race). */
export async function getOrCreateSetting(db: Kysely<Database>, key: string, create: () => string): Promise<string> {
  const existing = await getSetting(db, key);
  if (existing !== undefined) return existing;
  await db
    .insertInto('settings')
    .values({ key, value: create() })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const stored = await getSetting(db, key);
  if (stored === undefined) throw new Error(`setting ${key} could not be stored`);
  return stored;
}

export async function setSetting(db: Kysely<Database>, key: string, value: string): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}
