/** Environments of a workspace; the first one (created by the first start) is its default. */
import { newId } from './ids.js';
import { internalsOf, writeShared, type Store } from './handle.js';
import type { EnvironmentsTable } from './schema.js';

export async function createEnvironment(
  store: Store,
  opts: { workspaceId: string; name: string; description?: string | null; isDefault?: boolean; now: number },
): Promise<EnvironmentsTable> {
  const row: EnvironmentsTable = {
    id: newId('ae'),
    workspace_id: opts.workspaceId,
    name: opts.name,
    description: opts.description ?? null,
    is_default: opts.isDefault ? 1 : 0,
    created_at: opts.now,
    updated_at: null,
  };
  await internalsOf(store).db.insertInto('environments').values(row).execute();
  return row;
}

export async function listEnvironments(store: Store, workspaceId: string): Promise<EnvironmentsTable[]> {
  return listEnvironmentsPage(store, workspaceId, { offset: 0, limit: -1 });
}

/** One window of the workspace's environments, oldest first; `limit` -1 = all. */
export async function listEnvironmentsPage(
  store: Store,
  workspaceId: string,
  window: { offset: number; limit: number },
): Promise<EnvironmentsTable[]> {
  return internalsOf(store)
    .db.selectFrom('environments')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(window.limit < 0 ? Number.MAX_SAFE_INTEGER : window.limit)
    .offset(window.offset)
    .execute();
}

export async function getEnvironment(store: Store, id: string): Promise<EnvironmentsTable | undefined> {
  return internalsOf(store).db.selectFrom('environments').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The environment `id` if it belongs to `workspaceId`. */
export async function getEnvironmentInWorkspace(store: Store, workspaceId: string, id: string): Promise<EnvironmentsTable | undefined> {
  return internalsOf(store)
    .db.selectFrom('environments')
    .selectAll()
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

export async function getDefaultEnvironment(store: Store, workspaceId: string): Promise<EnvironmentsTable | undefined> {
  return internalsOf(store)
    .db.selectFrom('environments')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('is_default', '=', 1)
    .executeTakeFirst();
}

export async function updateEnvironment(
  store: Store,
  id: string,
  change: { name?: string; description?: string | null },
  now: number,
): Promise<void> {
  await internalsOf(store)
    .db.updateTable('environments')
    .set({ ...change, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** Deletes the environment (callers check first that nothing uses it). */
export async function deleteEnvironment(store: Store, id: string): Promise<void> {
  await writeShared(store, (trx) => internalsOf(trx).db.deleteFrom('environments').where('id', '=', id).execute());
}
