/**
 * Changes apply at once on every process: two services (each with its own store and caches) on
 * one PostgreSQL database and Redis. The Server API and the Management API never cache keys;
 * ingestion caches keys and rules and drops them on the PostgreSQL NOTIFY of the change, which
 * arrives asynchronously (one network hop after the commit): ingestion is given up to 1 s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService, type Service } from '../../src/service/index.js';
import { identifyRequest, postIdentify } from '../helpers/identify-request.js';
import { createRedisPrefix, createTestPostgresDatabase, REDIS_TEST_URL, type TestDatabase, type TestService } from '../helpers/test-service.js';
import { liftManagementRateLimit, mgmt } from './helpers.js';

const NOTIFY_BOUND_MS = 1000;

/** Repeats `check` until it holds or NOTIFY_BOUND_MS passed; returns whether it held. */
async function within(check: () => Promise<boolean>): Promise<boolean> {
  const deadline = performance.now() + NOTIFY_BOUND_MS;
  for (;;) {
    if (await check()) return true;
    if (performance.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('changes apply on every process (PostgreSQL + Redis)', () => {
  let database: TestDatabase;
  let redis: ReturnType<typeof createRedisPrefix>;
  let a: Service;
  let b: Service;
  let ta: TestService;
  let urlB: string;

  beforeAll(async () => {
    database = await createTestPostgresDatabase();
    redis = createRedisPrefix();
    const config = { port: 0, host: '127.0.0.1', logLevel: 'silent', ...database.config, redisUrl: REDIS_TEST_URL, redisKeyPrefix: redis.prefix };
    a = await createService(config);
    b = await createService(config);
    const urlA = await a.listen();
    urlB = await b.listen();
    const { publicKey, secretKey, managementKey, workspaceId, environmentId } = a.bootstrap;
    ta = { url: urlA, service: a, keys: { publicKey, secretKey: secretKey!, managementKey: managementKey! }, workspaceId, environmentId, close: async () => {} };
    await liftManagementRateLimit(ta);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
    await redis?.cleanup();
  });

  it('a secret key disabled on A is refused by the Server API on B on the next request', async () => {
    const key = (await mgmt(ta, 'POST', '/api-keys', { body: { type: 'secret', name: 'Shared' } })).body.data;
    const onB = () => fetch(`${urlB}/v4/events`, { headers: { Authorization: `Bearer ${key.token}` } });
    expect((await onB()).status).toBe(200);
    await mgmt(ta, 'PATCH', `/api-keys/${key.id}`, { body: { status: 'disabled' } });
    expect((await onB()).status).toBe(403);
  });

  it('a management key deleted on A is refused by B on the next request', async () => {
    const key = (await mgmt(ta, 'POST', '/api-keys', { body: { type: 'management', name: 'Short-lived' } })).body.data;
    const onB = () => mgmt({ ...ta, url: urlB }, 'GET', '/workspace/settings', { key: key.token });
    expect((await onB()).status).toBe(200);
    await mgmt(ta, 'DELETE', `/api-keys/${key.id}`);
    expect((await onB()).status).toBe(401);
  });

  it('a public key disabled on A stops identification on B within the NOTIFY bound', async () => {
    const key = (await mgmt(ta, 'POST', '/api-keys', { body: { type: 'public', name: 'Site B' } })).body.data;
    expect((await postIdentify(urlB, identifyRequest(key.token))).status).toBe(200); // now cached in B
    await mgmt(ta, 'PATCH', `/api-keys/${key.id}`, { body: { status: 'disabled' } });
    expect(await within(async () => (await postIdentify(urlB, identifyRequest(key.token))).status === 403)).toBe(true);
  });

  it('a rule created and changed on A applies to identification on B within the NOTIFY bound', async () => {
    const headers = { 'User-Agent': 'Mozilla/5.0 CrossBot/1.0' };
    const identifyOnB = async () => (await postIdentify(urlB, identifyRequest(ta.keys.publicKey), { headers })).status;
    expect(await identifyOnB()).toBe(200); // B caches the environment's (empty) rules
    const rule = (await mgmt(ta, 'POST', '/filtering-rules', { body: { name: 'cross', expression: "http.user_agent.string contains 'CrossBot'", action: 'deny' } })).body.data;
    expect(await within(async () => (await identifyOnB()) === 403)).toBe(true);
    await mgmt(ta, 'POST', `/filtering-rules/${rule.id}`, { body: { id: rule.id, status: 'disabled' } });
    expect(await within(async () => (await identifyOnB()) === 200)).toBe(true);
  });
});
