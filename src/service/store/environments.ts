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

/** One window of the workspace's environments, oldest first. */
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
    .limit(window.limit)
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

/**
 * An environment a write wanted to attach something to no longer exists (it was deleted after
 * the caller looked it up). Routes answer it as they answer an unknown environment.
 */
export class EnvironmentNotFoundError extends Error {
  override readonly name = 'EnvironmentNotFoundError';

  constructor(readonly environmentId: string) {
    super(`no environment "${environmentId}"`);
  }
}

/**
 * For writes that attach something (an API key, a filtering rule, an encryption key, a
 * webhook) to an environment, inside their transaction: checks that the environment exists
 * and keeps it from being deleted until the transaction ends; throws EnvironmentNotFoundError
 * when it is gone. PostgreSQL: a FOR SHARE lock on its row, which conflicts with the FOR UPDATE
 * of deleteEnvironmentIfUnused, so one of the two waits for the other and then sees its
 * outcome (the deletion sees the new key and refuses; the write sees no environment and
 * fails). SQLite: a process's transactions run one at a time on its one connection, and a
 * transaction of another process that read before this one committed cannot commit a write
 * (SQLITE_BUSY_SNAPSHOT): never an orphan, at worst a failed request.
 */
export async function holdEnvironment(trx: Store, environmentId: string): Promise<void> {
  const row = await internalsOf(trx)
    .db.selectFrom('environments')
    .select('id')
    .where('id', '=', environmentId)
    .$if(trx.engine === 'postgres', (q) => q.forShare())
    .executeTakeFirst();
  if (!row) throw new EnvironmentNotFoundError(environmentId);
}

/** What still uses an environment, by kind; an environment in use cannot be deleted. */
export interface EnvironmentUses {
  apiKeys: number;
  filteringRules: number;
  encryptionKeys: number;
  webhooks: number;
}

async function countUses(trx: Store, environment: { id: string; workspace_id: string }): Promise<EnvironmentUses> {
  const { db } = internalsOf(trx);
  const count = async (q: { executeTakeFirst(): Promise<{ n: unknown } | undefined> }) => Number((await q.executeTakeFirst())?.n ?? 0);
  return {
    apiKeys: await count(db.selectFrom('api_keys').select((eb) => eb.fn.countAll().as('n')).where('environment_id', '=', environment.id)),
    filteringRules: await count(db.selectFrom('filtering_rules').select((eb) => eb.fn.countAll().as('n')).where('environment_id', '=', environment.id)),
    encryptionKeys: await count(db.selectFrom('encryption_keys').select((eb) => eb.fn.countAll().as('n')).where('environment_id', '=', environment.id)),
    webhooks: await count(
      db
        .selectFrom('webhooks')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('workspace_id', '=', environment.workspace_id)
        .where('environment_id', '=', environment.id),
    ),
  };
}

/**
 * Deletes the environment of the workspace unless something still uses it, as one step: the
 * check and the delete run in one transaction, on PostgreSQL with the environment's row locked
 * FOR UPDATE first (writes attaching to it hold it FOR SHARE: holdEnvironment), so nothing can
 * be attached between the check and the delete. Returns `deleted`, `not_found`, or what uses it.
 */
export async function deleteEnvironmentIfUnused(
  store: Store,
  workspaceId: string,
  id: string,
): Promise<{ outcome: 'deleted' } | { outcome: 'not_found' } | { outcome: 'in_use'; uses: EnvironmentUses }> {
  return writeShared(store, async (trx) => {
    const { db } = internalsOf(trx);
    const environment = await db
      .selectFrom('environments')
      .select(['id', 'workspace_id'])
      .where('id', '=', id)
      .where('workspace_id', '=', workspaceId)
      .$if(trx.engine === 'postgres', (q) => q.forUpdate())
      .executeTakeFirst();
    if (!environment) return { outcome: 'not_found' as const };
    const uses = await countUses(trx, environment);
    if (Object.values(uses).some((n) => n > 0)) return { outcome: 'in_use' as const, uses };
    await db.deleteFrom('environments').where('id', '=', id).execute();
    return { outcome: 'deleted' as const };
  });
}
