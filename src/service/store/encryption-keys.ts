/**
 * Encryption keys of sealed results. Rows hold the key values encrypted (the callers in
 * sealing/ encrypt and decrypt them); this file only stores and finds rows.
 */
import { internalsOf, type Store } from './handle.js';
import type { EncryptionKeysTable, EncryptionKeyStatus } from './schema.js';

export async function insertEncryptionKey(store: Store, row: EncryptionKeysTable): Promise<void> {
  const { db, state } = internalsOf(store);
  await db.insertInto('encryption_keys').values(row).execute();
  state.readCaches.invalidate();
}

export async function getEncryptionKey(store: Store, workspaceId: string, id: string): Promise<EncryptionKeysTable | undefined> {
  return internalsOf(store)
    .db.selectFrom('encryption_keys')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * A page of the workspace's keys, oldest first; `after` is the last row of the previous page
 * (keyset pagination: stable while keys are created or deleted in between).
 */
export async function listEncryptionKeys(
  store: Store,
  query: {
    workspaceId: string;
    status?: EncryptionKeyStatus;
    environmentId?: string;
    after?: { createdAt: number; id: string };
    limit: number;
  },
): Promise<EncryptionKeysTable[]> {
  let select = internalsOf(store).db.selectFrom('encryption_keys').selectAll().where('workspace_id', '=', query.workspaceId);
  if (query.status) select = select.where('status', '=', query.status);
  if (query.environmentId) select = select.where('environment_id', '=', query.environmentId);
  const after = query.after;
  if (after) {
    select = select.where((eb) =>
      eb.or([eb('created_at', '>', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('id', '>', after.id)])]),
    );
  }
  return select.orderBy('created_at').orderBy('id').limit(query.limit).execute();
}

/** Writes the given columns of one key; false when the workspace has no such key. */
export async function updateEncryptionKey(
  store: Store,
  workspaceId: string,
  id: string,
  changes: Partial<Omit<EncryptionKeysTable, 'id' | 'workspace_id' | 'environment_id' | 'created_at'>>,
): Promise<boolean> {
  const { db, state } = internalsOf(store);
  const result = await db
    .updateTable('encryption_keys')
    .set(changes)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  state.readCaches.invalidate();
  return Number(result.numUpdatedRows) > 0;
}

/** False when the workspace has no such key. */
export async function deleteEncryptionKey(store: Store, workspaceId: string, id: string): Promise<boolean> {
  const { db, state } = internalsOf(store);
  const result = await db.deleteFrom('encryption_keys').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  state.readCaches.invalidate();
  return Number(result.numDeletedRows) > 0;
}

/**
 * The key that seals the environment's results: its enabled key, the most recently enabled
 * one when there are several. Cached briefly (read-cache.ts) because every identification
 * asks; a change through this store applies at once, one from another process within
 * READ_CACHE_TTL_MS.
 */
export async function findSealingKeyCached(store: Store, environmentId: string): Promise<EncryptionKeysTable | undefined> {
  return internalsOf(store).state.readCaches.get('sealingKeyOfEnvironment', environmentId, async () => {
    const row = await internalsOf(store)
      .db.selectFrom('encryption_keys')
      .selectAll()
      .where('environment_id', '=', environmentId)
      .where('status', '=', 'enabled')
      .orderBy('last_activated_at', 'desc')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && Object.freeze(row);
  });
}

/** Whether any encryption key exists (the service refuses to start without the key to read them). */
export async function hasEncryptionKeys(store: Store): Promise<boolean> {
  const row = await internalsOf(store).db.selectFrom('encryption_keys').select('id').limit(1).executeTakeFirst();
  return row !== undefined;
}
