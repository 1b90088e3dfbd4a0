/** API keys: public (agent), secret (Server API), proxy, and management (Management API). */
import { newId, randomString } from './ids.js';
import { internalsOf, type Store } from './handle.js';
import type { ApiKeysTable, ApiKeyType } from './schema.js';

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

export async function createApiKey(
  store: Store,
  opts: {
    workspaceId: string;
    environmentId: string | null;
    type: ApiKeyType;
    name: string;
    description?: string | null;
    rateLimit?: number;
    now: number;
  },
): Promise<ApiKeysTable> {
  const row: ApiKeysTable = {
    id: newId('tok'),
    workspace_id: opts.workspaceId,
    environment_id: opts.environmentId,
    type: opts.type,
    name: opts.name,
    description: opts.description ?? null,
    token: randomString(TOKEN_LENGTHS[opts.type]),
    status: 'enabled',
    rate_limit: opts.rateLimit ?? DEFAULT_RATE_LIMITS[opts.type],
    created_at: opts.now,
    disabled_at: null,
  };
  const { db, state } = internalsOf(store);
  await db.insertInto('api_keys').values(row).execute();
  state.readCaches.invalidate();
  return row;
}

/** The key with this token value, whatever its type or status (callers check both). */
export async function findApiKeyByToken(store: Store, token: string): Promise<ApiKeysTable | undefined> {
  return internalsOf(store).db.selectFrom('api_keys').selectAll().where('token', '=', token).executeTakeFirst();
}

export async function getApiKey(store: Store, id: string): Promise<ApiKeysTable | undefined> {
  return internalsOf(store).db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listApiKeys(store: Store, workspaceId?: string): Promise<ApiKeysTable[]> {
  let q = internalsOf(store).db.selectFrom('api_keys').selectAll();
  if (workspaceId) q = q.where('workspace_id', '=', workspaceId);
  return q.orderBy('created_at').orderBy('id').execute();
}

/** Disables (or re-enables) a key; returns false when no key has this id. */
export async function setApiKeyStatus(
  store: Store,
  id: string,
  status: ApiKeysTable['status'],
  now: number,
): Promise<boolean> {
  const { db, state } = internalsOf(store);
  const result = await db
    .updateTable('api_keys')
    .set({ status, disabled_at: status === 'disabled' ? now : null })
    .where('id', '=', id)
    .executeTakeFirst();
  state.readCaches.invalidate();
  return Number(result.numUpdatedRows) > 0;
}

export async function setApiKeyRateLimit(store: Store, id: string, requestsPerSecond: number): Promise<void> {
  const { db, state } = internalsOf(store);
  await db.updateTable('api_keys').set({ rate_limit: requestsPerSecond }).where('id', '=', id).execute();
  state.readCaches.invalidate();
}

export type KeyWithRegion = ApiKeysTable & { region: string };

/** A key with its workspace's region: what authorising a request needs, in one query. */
export async function findApiKeyWithRegion(store: Store, token: string): Promise<Readonly<KeyWithRegion> | undefined> {
  return internalsOf(store)
    .db.selectFrom('api_keys')
    .innerJoin('workspaces', 'workspaces.id', 'api_keys.workspace_id')
    .selectAll('api_keys')
    .select('workspaces.region')
    .where('api_keys.token', '=', token)
    .executeTakeFirst();
}

/**
 * findApiKeyWithRegion for ingestion and the CDN route, cached briefly (read-cache.ts): a key
 * disabled by another process stops working within READ_CACHE_TTL_MS, at once when disabled
 * through this store.
 */
export async function findApiKeyWithRegionCached(store: Store, token: string): Promise<Readonly<KeyWithRegion> | undefined> {
  return internalsOf(store).state.readCaches.get('keysWithRegion', token, async () => {
    const row = await findApiKeyWithRegion(store, token);
    return row && Object.freeze(row);
  });
}
