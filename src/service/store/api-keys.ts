/** API keys: public (agent), secret (Server API), proxy, and management (Management API). */
import { newId, randomString } from './ids.js';
import { holdEnvironment } from './environments.js';
import { internalsOf, writeShared, type Store } from './handle.js';
import type { ApiKeyStatus, ApiKeysTable, ApiKeyType } from './schema.js';
import { hashToken, sameTokenHash } from './token-hash.js';

export const API_KEY_TYPES: readonly ApiKeyType[] = ['public', 'secret', 'proxy', 'management'];

/** Requests per second a new key gets unless told otherwise. */
export const DEFAULT_RATE_LIMITS: Record<ApiKeyType, number> = {
  public: 1000,
  proxy: 1000,
  secret: 100,
  management: 20,
};

const TOKEN_LENGTHS: Record<ApiKeyType, number> = { public: 20, proxy: 32, secret: 32, management: 40 };

export function isApiKeyType(value: unknown): value is ApiKeyType {
  return typeof value === 'string' && (API_KEY_TYPES as readonly string[]).includes(value);
}

/** A key as created: the only time its plain token exists outside the caller's hands. */
export type CreatedApiKey = ApiKeysTable & { token: string };

export async function createApiKey(
  store: Store,
  opts: {
    workspaceId: string;
    environmentId: string | null;
    type: ApiKeyType;
    name: string;
    description?: string | null;
    rateLimit?: number;
    /** Management keys: the permissions held; undefined or null = all. */
    permissions?: readonly string[] | null;
    now: number;
  },
): Promise<CreatedApiKey> {
  const token = randomString(TOKEN_LENGTHS[opts.type]);
  const row: ApiKeysTable = {
    id: newId('tok'),
    workspace_id: opts.workspaceId,
    environment_id: opts.environmentId,
    type: opts.type,
    name: opts.name,
    description: opts.description ?? null,
    token: opts.type === 'public' ? token : null,
    token_hash: hashToken(token),
    status: 'enabled',
    rate_limit: opts.rateLimit ?? DEFAULT_RATE_LIMITS[opts.type],
    permissions: opts.permissions ? JSON.stringify(opts.permissions) : null,
    created_at: opts.now,
    disabled_at: null,
  };
  await writeShared(store, async (trx) => {
    // The environment must still exist, and cannot be deleted before this commits.
    if (row.environment_id !== null) await holdEnvironment(trx, row.environment_id);
    await internalsOf(trx).db.insertInto('api_keys').values(row).execute();
  });
  return { ...row, token };
}

/** The key with this token, whatever its type or status (callers check both). Never cached. */
export async function findApiKeyByToken(store: Store, token: string): Promise<ApiKeysTable | undefined> {
  const hash = hashToken(token);
  const row = await internalsOf(store).db.selectFrom('api_keys').selectAll().where('token_hash', '=', hash).executeTakeFirst();
  return row && sameTokenHash(row.token_hash, hash) ? row : undefined;
}

export async function getApiKey(store: Store, id: string): Promise<ApiKeysTable | undefined> {
  return internalsOf(store).db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The key `id` if it belongs to `workspaceId`. */
export async function getApiKeyInWorkspace(store: Store, workspaceId: string, id: string): Promise<ApiKeysTable | undefined> {
  return internalsOf(store)
    .db.selectFrom('api_keys')
    .selectAll()
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

export async function listApiKeys(store: Store, workspaceId?: string): Promise<ApiKeysTable[]> {
  let q = internalsOf(store).db.selectFrom('api_keys').selectAll();
  if (workspaceId) q = q.where('workspace_id', '=', workspaceId);
  return q.orderBy('created_at').orderBy('id').execute();
}

export interface ApiKeyFilter {
  type?: ApiKeyType;
  status?: ApiKeyStatus;
  environmentId?: string;
}

/** One window of the workspace's keys, oldest first (`limit` rows from `offset`). */
export async function listApiKeysPage(
  store: Store,
  workspaceId: string,
  filter: ApiKeyFilter,
  window: { offset: number; limit: number },
): Promise<ApiKeysTable[]> {
  let q = internalsOf(store).db.selectFrom('api_keys').selectAll().where('workspace_id', '=', workspaceId);
  if (filter.type) q = q.where('type', '=', filter.type);
  if (filter.status) q = q.where('status', '=', filter.status);
  if (filter.environmentId) q = q.where('environment_id', '=', filter.environmentId);
  return q.orderBy('created_at').orderBy('id').limit(window.limit).offset(window.offset).execute();
}

/** Disables (or re-enables) a key; returns false when no key has this id. */
export async function setApiKeyStatus(store: Store, id: string, status: ApiKeysTable['status'], now: number): Promise<boolean> {
  return (await updateApiKey(store, id, { status }, now)) !== undefined;
}

export async function setApiKeyRateLimit(store: Store, id: string, requestsPerSecond: number): Promise<void> {
  await updateApiKey(store, id, { rateLimit: requestsPerSecond }, Date.now());
}

/**
 * Changes the given fields of key `id`; disabling sets `disabled_at` (unless already disabled),
 * enabling clears it. Returns the updated key, undefined when there is none.
 */
export async function updateApiKey(
  store: Store,
  id: string,
  change: { name?: string; description?: string | null; status?: ApiKeyStatus; rateLimit?: number },
  now: number,
): Promise<ApiKeysTable | undefined> {
  return writeShared(store, async (trx) => {
    const { db } = internalsOf(trx);
    const current = await getApiKey(trx, id);
    if (!current) return undefined;
    const next: ApiKeysTable = {
      ...current,
      ...(change.name !== undefined ? { name: change.name } : {}),
      ...(change.description !== undefined ? { description: change.description } : {}),
      ...(change.rateLimit !== undefined ? { rate_limit: change.rateLimit } : {}),
    };
    if (change.status !== undefined && change.status !== current.status) {
      next.status = change.status;
      next.disabled_at = change.status === 'disabled' ? now : null;
    }
    await db
      .updateTable('api_keys')
      .set({ name: next.name, description: next.description, rate_limit: next.rate_limit, status: next.status, disabled_at: next.disabled_at })
      .where('id', '=', id)
      .execute();
    return next;
  });
}

/** Deletes key `id`; false when there was none. */
export async function deleteApiKey(store: Store, id: string): Promise<boolean> {
  return writeShared(store, async (trx) => {
    const result = await internalsOf(trx).db.deleteFrom('api_keys').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  });
}

export type KeyWithRegion = ApiKeysTable & { region: string };

/** A key with its workspace's region: what authorising a request needs, in one query. Never cached. */
export async function findApiKeyWithRegion(store: Store, token: string): Promise<Readonly<KeyWithRegion> | undefined> {
  const hash = hashToken(token);
  const row = await internalsOf(store)
    .db.selectFrom('api_keys')
    .innerJoin('workspaces', 'workspaces.id', 'api_keys.workspace_id')
    .selectAll('api_keys')
    .select('workspaces.region')
    .where('api_keys.token_hash', '=', hash)
    .executeTakeFirst();
  return row && sameTokenHash(row.token_hash, hash) ? row : undefined;
}

/**
 * findApiKeyWithRegion for ingestion and the CDN route, cached (read-cache.ts) and invalidated
 * by writes of any process (change-feed.ts). Cached by the token's hash: the plain token of a
 * secret key presented here by mistake is not kept in memory.
 */
export async function findApiKeyWithRegionCached(store: Store, token: string): Promise<Readonly<KeyWithRegion> | undefined> {
  return internalsOf(store).state.readCaches.get('keysWithRegion', hashToken(token), async () => {
    const row = await findApiKeyWithRegion(store, token);
    return row && Object.freeze(row);
  });
}
