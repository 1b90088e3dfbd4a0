/**
 * Encryption keys of sealed results. Rows hold the key values encrypted (the callers in
 * sealing/ encrypt and decrypt them); this file only stores and finds rows.
 */
import { holdEnvironment } from './environments.js';
import { internalsOf, writeShared, type Store } from './handle.js';
import type { EncryptionKeysTable, EncryptionKeyStatus } from './schema.js';

// Writes go through writeShared: ingestion caches the sealing key (findSealingKeyCached), in
// this process and in the others sharing the database.

export async function insertEncryptionKey(store: Store, row: EncryptionKeysTable): Promise<void> {
  await writeShared(store, async (trx) => {
    // The environment must still exist, and cannot be deleted before this commits.
    await holdEnvironment(trx, row.environment_id);
    await internalsOf(trx).db.insertInto('encryption_keys').values(row).execute();
  });
}

export async function getEncryptionKey(store: Store, workspaceId: string, id: string): Promise<EncryptionKeysTable | undefined> {
  return internalsOf(store)
    .db.selectFrom('encryption_keys')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** One window of the workspace's keys, oldest first (`limit` rows from `offset`). */
export async function listEncryptionKeysPage(
  store: Store,
  workspaceId: string,
  filter: { status?: EncryptionKeyStatus; environmentId?: string },
  window: { offset: number; limit: number },
): Promise<EncryptionKeysTable[]> {
  let q = internalsOf(store).db.selectFrom('encryption_keys').selectAll().where('workspace_id', '=', workspaceId);
  if (filter.status) q = q.where('status', '=', filter.status);
  if (filter.environmentId) q = q.where('environment_id', '=', filter.environmentId);
  return q.orderBy('created_at').orderBy('id').limit(window.limit).offset(window.offset).execute();
}

/**
 * Reads the key and writes what `change` makes of it, in one transaction; undefined when the
 * workspace has no such key. `change` is where the rules live (sealing/key-lifecycle.ts).
 */
export async function changeEncryptionKey(
  store: Store,
  workspaceId: string,
  id: string,
  change: (row: EncryptionKeysTable) => Partial<Omit<EncryptionKeysTable, 'id' | 'workspace_id' | 'environment_id' | 'created_at'>>,
): Promise<EncryptionKeysTable | undefined> {
  return writeShared(store, async (trx) => {
    // Locked on PostgreSQL: two rotations at once must not both start from the same values.
    const row = await internalsOf(trx)
      .db.selectFrom('encryption_keys')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .$if(trx.engine === 'postgres', (q) => q.forUpdate())
      .executeTakeFirst();
    if (!row) return undefined;
    const changes = change(row);
    await internalsOf(trx).db.updateTable('encryption_keys').set(changes).where('id', '=', id).execute();
    return { ...row, ...changes };
  });
}

/** False when the workspace has no such key. */
export async function deleteEncryptionKey(store: Store, workspaceId: string, id: string): Promise<boolean> {
  return writeShared(store, async (trx) => {
    const result = await internalsOf(trx).db.deleteFrom('encryption_keys').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  });
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

/** Some encryption key, if any exists (the service checks at start that it can read them). */
export async function anyEncryptionKey(store: Store): Promise<EncryptionKeysTable | undefined> {
  return internalsOf(store).db.selectFrom('encryption_keys').selectAll().limit(1).executeTakeFirst();
}
