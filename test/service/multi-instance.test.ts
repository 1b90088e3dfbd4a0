/**
 * Starting again on existing data, several processes on one PostgreSQL database (one
 * bootstrap, shared data), and rate-limit counters shared through Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService, type Service } from '../../src/service/index.js';
import { createApiKey } from '../../src/service/store/api-keys.js';
import { countEvents } from '../../src/service/store/events.js';
import { kyselyOf } from '../../src/service/store/index.js';
import { identifyRequest, postIdentify } from '../helpers/identify-request.js';
import {
  createRedisPrefix,
  createTestDatabase,
  createTestPostgresDatabase,
  ENGINES,
  REDIS_TEST_URL,
  type TestDatabase,
} from '../helpers/test-service.js';

describe.each(ENGINES)('restart on existing data (%s)', (engine) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('a second start reuses the workspace, keys and events of the first', async () => {
    const first = await createService({ port: 0, logLevel: 'silent', ...database.config });
    expect(first.firstStart).toBe(true);
    const url = await first.listen();
    const identified = await postIdentify(url, identifyRequest(first.bootstrap.publicKey));
    expect(identified.status).toBe(200);
    await first.close();

    const second = await createService({ port: 0, logLevel: 'silent', ...database.config });
    try {
      expect(second.firstStart).toBe(false);
      // The same records; the secret and management tokens only from the start that created them (stored hashed).
      expect(second.bootstrap).toEqual({ ...first.bootstrap, secretKey: null, managementKey: null });
      expect(first.bootstrap.secretKey).toEqual(expect.any(String));
      expect(await countEvents(second.ctx.store)).toBe(1);
      const url2 = await second.listen();
      // The visitor token signed before the restart still resolves: the signing secret is stored.
      const again = await postIdentify(url2, identifyRequest(second.bootstrap.publicKey, { token: identified.json.token }));
      expect(again.json.visitor_id).toBe(identified.json.visitor_id);
      expect(again.json.visitor_found).toBe(true);
    } finally {
      await second.close();
    }
  });
});

describe('several instances on one PostgreSQL database with Redis counters', () => {
  let database: TestDatabase;
  let redisPrefix: ReturnType<typeof createRedisPrefix>;
  let a: Service;
  let b: Service;
  let urlA: string;
  let urlB: string;

  beforeAll(async () => {
    database = await createTestPostgresDatabase();
    redisPrefix = createRedisPrefix();
    const config = { port: 0, logLevel: 'silent', ...database.config, redisUrl: REDIS_TEST_URL, redisKeyPrefix: redisPrefix.prefix };
    // Started together on an empty database: the migration lock and the bootstrap claim make one set.
    [a, b] = await Promise.all([createService(config), createService(config)]);
    [urlA, urlB] = await Promise.all([a.listen(), b.listen()]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await database?.drop();
    await redisPrefix?.cleanup();
  });

  it('bootstraps once and shares the data', async () => {
    const withoutTokens = (s: Service) => ({ ...s.bootstrap, secretKey: null, managementKey: null });
    expect(withoutTokens(a)).toEqual(withoutTokens(b));
    expect([a.firstStart, b.firstStart].filter(Boolean)).toHaveLength(1);
    const keys = await kyselyOf(a.ctx.store).selectFrom('api_keys').select('id').execute();
    expect(keys).toHaveLength(3);

    const viaA = await postIdentify(urlA, identifyRequest(a.bootstrap.publicKey));
    const viaB = await postIdentify(urlB, identifyRequest(b.bootstrap.publicKey, { token: viaA.json.token }));
    expect(viaB.json.visitor_id).toBe(viaA.json.visitor_id);
    expect(viaB.json.visitor_found).toBe(true);
  });

  it("counts a key's requests across instances in Redis", async () => {
    const key = await createApiKey(a.ctx.store, {
      workspaceId: a.bootstrap.workspaceId,
      environmentId: a.bootstrap.environmentId,
      type: 'public',
      name: 'shared limit',
      rateLimit: 2,
      now: Date.now(),
    });
    // Two requests through A use the key's whole second; B sees the same counter.
    const statuses: number[] = [];
    for (const url of [urlA, urlA, urlB, urlB]) statuses.push((await postIdentify(url, identifyRequest(key.token))).status);
    // With per-process memory counters B would allow its two; shared counters refuse them.
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    expect(statuses.slice(2)).toContain(429);

    const redisKeys = await (async () => {
      const { Redis } = await import('ioredis');
      const redis = new Redis(REDIS_TEST_URL);
      try {
        return await redis.keys(`${redisPrefix.prefix}*`);
      } finally {
        redis.disconnect();
      }
    })();
    expect(redisKeys.some((k) => k.includes(key.id))).toBe(true);
  });
});
