/**
 * Starts the real service for a test: SQLite in a fresh temp directory, or PostgreSQL in a
 * fresh database (dropped by close()), optionally with Redis rate-limit counters under a
 * unique key prefix (deleted by close()).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createService, type Service, type ServiceConfig } from '../../src/service/index.js';
import { openStore, type Store } from '../../src/service/store/index.js';

export type Engine = 'sqlite' | 'postgres';
export const ENGINES: Engine[] = ['sqlite', 'postgres'];

export const POSTGRES_ADMIN_URL = process.env.TESSERA_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_TEST_URL = process.env.TESSERA_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface TestService {
  url: string;
  service: Service;
  keys: { publicKey: string; secretKey: string; managementKey: string };
  workspaceId: string;
  environmentId: string;
  close(): Promise<void>;
}

export interface TestDatabase {
  /** `databaseUrl` for PostgreSQL, `dataDir` for SQLite. */
  config: Pick<ServiceConfig, 'databaseUrl' | 'dataDir'>;
  drop(): Promise<void>;
}

function suffix(): string {
  return randomBytes(6).toString('hex');
}

/** A fresh, empty PostgreSQL database `tessera_t_<random>`, created through the `test` database. */
export async function createTestPostgresDatabase(): Promise<TestDatabase> {
  const name = `tessera_t_${suffix()}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    config: { databaseUrl: url.toString() },
    async drop() {
      const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** A fresh temp directory for the SQLite file. */
export function createTestSqliteDatabase(): TestDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-test-'));
  return { config: { dataDir: dir }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

export async function createTestDatabase(engine: Engine): Promise<TestDatabase> {
  return engine === 'postgres' ? createTestPostgresDatabase() : createTestSqliteDatabase();
}

/** A store opened on its own test database; `close()` destroys the store and drops the database. */
export interface TestStore {
  store: Store;
  close(): Promise<void>;
}

/** A store on a fresh, empty database of `engine`, not migrated (a migration test migrates it step by step). */
export async function openTestStore(engine: Engine, opts: { poolSize?: number } = {}): Promise<TestStore> {
  const database = await createTestDatabase(engine);
  const { dataDir, databaseUrl } = database.config;
  const store = openStore({ dataDir: dataDir ?? '', ...(databaseUrl ? { databaseUrl } : {}), ...opts });
  return {
    store,
    async close() {
      await store.destroy();
      await database.drop();
    },
  };
}

/** A unique Redis key prefix, and a function that deletes every key under it. */
export function createRedisPrefix(): { prefix: string; cleanup(): Promise<void> } {
  const prefix = `tessera-test:${suffix()}:`;
  return {
    prefix,
    async cleanup() {
      const redis = new Redis(REDIS_TEST_URL, { lazyConnect: true });
      await redis.connect();
      try {
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
          cursor = next;
          if (keys.length) await redis.del(...keys);
        } while (cursor !== '0');
      } finally {
        redis.disconnect();
      }
    },
  };
}

export async function startTestService(
  opts: { engine?: Engine; redis?: boolean; clock?: () => number; config?: Partial<ServiceConfig> } = {},
): Promise<TestService> {
  const database = await createTestDatabase(opts.engine ?? 'sqlite');
  const redisPrefix = opts.redis ? createRedisPrefix() : undefined;
  let service: Service;
  try {
    service = await createService({
      port: 0,
      host: '127.0.0.1',
      logLevel: 'silent',
      ...database.config,
      ...(redisPrefix ? { redisUrl: REDIS_TEST_URL, redisKeyPrefix: redisPrefix.prefix } : {}),
      ...(opts.clock ? { clock: opts.clock } : {}),
      ...opts.config,
    });
  } catch (err) {
    await database.drop();
    throw err;
  }
  const url = await service.listen();
  const { publicKey, secretKey, managementKey, workspaceId, environmentId } = service.bootstrap;
  // A fresh database: this start created the keys, so it knows the (hashed at rest) tokens.
  if (secretKey === null || managementKey === null) throw new Error('the test service did not create its keys');
  return {
    url,
    service,
    keys: { publicKey, secretKey, managementKey },
    workspaceId,
    environmentId,
    async close() {
      await service.close();
      await database.drop();
      await redisPrefix?.cleanup();
    },
  };
}
