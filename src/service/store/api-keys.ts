/** API keys: public (agent), secret (Server API), proxy, and management (Management API). */
import type { Kysely } from 'kysely';
import { newId, randomString } from './ids.js';
import { createReadCache, invalidateReadCaches } from './read-cache.js';
import type { ApiKeysTable, ApiKeyType, Database } from './schema.js';

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
  db: Kysely<Database>,
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
  await db.insertInto('api_keys').values(row).execute();
  invalidateReadCaches();
  return row;
}

/** The key with this token value, whatever its type or status (callers check both). */
export async function findApiKeyByToken(db: Kysely<Database>, token: string): Promise<ApiKeysTable | undefined> {
  return db.selectFrom('api_keys').selectAll().where('token', '=', token).executeTakeFirst();
}

export async function getApiKey(db: Kysely<Database>, id: string): Promise<ApiKeysTable | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listApiKeys(db: Kysely<Database>, workspaceId?: string): Promise<ApiKeysTable[]> {
  let q = db.selectFrom('api_keys').selectAll();
  if (workspaceId) q = q.where('workspace_id', '=', workspaceId);
  return q.orderBy('created_at').orderBy('id').execute();
}

/** Disables (or re-enables) a key; returns false when no key has this id. */
export async function setApiKeyStatus(
  db: Kysely<Database>,
  id: string,
  status: ApiKeysTable['status'],
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ status, disabled_at: status === 'disabled' ? now : null })
    .where('id', '=', id)
    .executeTakeFirst();
  invalidateReadCaches();
  return Number(result.numUpdatedRows) > 0;
}

export async function setApiKeyRateLimit(db: Kysely<Database>, id: string, requestsPerSecond: number): Promise<void> {
  await db.updateTable('api_keys').set({ rate_limit: requestsPerSecond }).where('id', '=', id).execute();
  invalidateReadCaches();
}

type KeyWithRegion = ApiKeysTable & { region: string };
const keysWithRegion = createReadCache<Readonly<KeyWithRegion> | undefined>();

/**
 * A key with its workspace's region: what ingestion and the CDN route need to authorise a
 * request, in one query. Cached briefly (read-cache.ts): a key disabled by another process
 * stops working within READ_CACHE_TTL_MS, at once when disabled through this process.
 */
export async function findApiKeyWithRegion(db: Kysely<Database>, token: string): Promise<Readonly<KeyWithRegion> | undefined> {
  return keysWithRegion.get(db, token, async () => {
    const row = await db
      .selectFrom('api_keys')
      .innerJoin('workspaces', 'workspaces.id', 'api_keys.workspace_id')
      .selectAll('api_keys')
      .select('workspaces.region')
      .where('api_keys.token', '=', token)
      .executeTakeFirst();
    return row && Object.freeze(row);
  });
}
