import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, setApiKeyStatus } from '../../src/service/store/api-keys.js';
import { setWorkspaceRegion } from '../../src/service/store/workspaces.js';
import { ENGINES, startTestService, type TestService } from '../helpers/test-service.js';
import { call, makeEvent, seed, T0 } from './fixtures.js';

/** One endpoint of each version and error style. */
const ENDPOINTS = [
  { name: 'v4 search', method: 'GET', path: '/v4/events', auth: 'v4' as const, style: 'v4' },
  { name: 'v3 event', method: 'GET', path: `/events/${T0}.aaaaaa`, auth: 'v3' as const, style: 'v3' },
  { name: 'v3 visitor lookup', method: 'GET', path: '/visitors/visAuth', auth: 'v3' as const, style: 'plain' },
];

const CODES = {
  required: { v4: 'secret_api_key_required', v3: 'TokenRequired', text: 'secret API key in header is missing or empty' },
  notFound: { v4: 'secret_api_key_not_found', v3: 'TokenNotFound', text: 'no workspace found for specified secret API key' },
  region: { v4: 'wrong_region', v3: 'WrongRegion', text: 'wrong region' },
};

function expectError(res: { status: number; body: any }, style: string, kind: keyof typeof CODES) {
  expect(res.status).toBe(403);
  const c = CODES[kind];
  if (style === 'plain') expect(res.body).toEqual({ error: c.text });
  else expect(res.body).toEqual({ error: { code: style === 'v4' ? c.v4 : c.v3, message: c.text } });
}

describe.each(ENGINES)('Server API authentication (%s)', (engine) => {
  let t: TestService;

  beforeAll(async () => {
    t = await startTestService({ engine });
    await seed(t, [makeEvent(Date.now() - 1000, 'visAuth')]);
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(ENDPOINTS)('$name: a valid secret key is accepted', async ({ method, path, auth }) => {
    const res = await call(t, method, path, { auth });
    expect([200, 404]).toContain(res.status); // the v3 event does not exist: 404, but authenticated
    if (path.startsWith('/events/')) expect(res.body.error.code).toBe('RequestNotFound');
  });

  it.each(ENDPOINTS)('$name: missing or empty key -> 403 required', async ({ method, path, style }) => {
    expectError(await call(t, method, path, { auth: 'none' }), style, 'required');
    const header: Record<string, string> = style === 'v4' ? { Authorization: 'Bearer ' } : { 'Auth-API-Key': '' };
    expectError(await call(t, method, path, { auth: 'none', headers: header }), style, 'required');
  });

  it.each(ENDPOINTS)('$name: unknown, public, management or disabled key -> 403 not found', async ({ method, path, auth, style }) => {
    expectError(await call(t, method, path, { auth, key: 'no-such-key-000000000000' }), style, 'notFound');
    expectError(await call(t, method, path, { auth, key: t.keys.publicKey }), style, 'notFound');
    expectError(await call(t, method, path, { auth, key: t.keys.managementKey }), style, 'notFound');
    const db = t.service.ctx.store;
    const key = await createApiKey(db, { workspaceId: t.workspaceId, environmentId: null, type: 'secret', name: 'soon off', now: T0 });
    expect((await call(t, method, path, { auth, key: key.token })).status).not.toBe(403);
    await setApiKeyStatus(db, key.id, 'disabled', T0);
    expectError(await call(t, method, path, { auth, key: key.token }), style, 'notFound');
  });

  it('v4 does not accept the v3 header, v3 does not accept the bearer header', async () => {
    expectError(await call(t, 'GET', '/v4/events', { auth: 'none', headers: { 'Auth-API-Key': t.keys.secretKey } }), 'v4', 'required');
    expectError(await call(t, 'GET', '/events/search', { auth: 'none', headers: { Authorization: `Bearer ${t.keys.secretKey}` } }), 'v3', 'required');
  });

  it('v3 also takes the key from the api_key query parameter', async () => {
    const res = await call(t, 'GET', `/visitors/visAuth?api_key=${t.keys.secretKey}`, { auth: 'none' });
    expect(res.status).toBe(200);
    expect(res.body.visitorId).toBe('visAuth');
  });

  it.each(ENDPOINTS)('$name: a workspace of another region -> 403 wrong region', async ({ method, path, auth, style }) => {
    await setWorkspaceRegion(t.service.ctx.store, t.workspaceId, 'eu');
    try {
      expectError(await call(t, method, path, { auth }), style, 'region');
    } finally {
      await setWorkspaceRegion(t.service.ctx.store, t.workspaceId, 'us');
    }
  });

  it('per-key rate limit: 429, with Retry-After (seconds) on v3 only', async () => {
    const db = t.service.ctx.store;
    const key = await createApiKey(db, { workspaceId: t.workspaceId, environmentId: null, type: 'secret', name: 'slow', rateLimit: 2, now: T0 });
    const burst = async (path: string, auth: 'v4' | 'v3') =>
      Promise.all(Array.from({ length: 8 }, () => call(t, 'GET', path, { auth, key: key.token })));

    const v4 = await burst('/v4/events', 'v4');
    const v4Limited = v4.filter((r) => r.status === 429);
    expect(v4Limited.length).toBeGreaterThan(0);
    for (const r of v4Limited) {
      expect(r.body).toEqual({ error: { code: 'too_many_requests', message: 'too many requests' } });
      expect(r.headers.get('retry-after')).toBeNull();
    }

    for (const [path, plain] of [['/events/search', false], ['/visitors/visAuth', true]] as const) {
      const limited = (await burst(path, 'v3')).filter((r) => r.status === 429);
      expect(limited.length).toBeGreaterThan(0);
      for (const r of limited) {
        expect(r.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
        expect(r.body).toEqual(plain ? { error: 'too many requests' } : { error: { code: 'TooManyRequests', message: 'too many requests' } });
      }
    }
  });
});

describe('per-key rate limit with Redis counters (postgres)', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ engine: 'postgres', redis: true });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('429 past the key limit, v3 with Retry-After', async () => {
    const key = await createApiKey(t.service.ctx.store, { workspaceId: t.workspaceId, environmentId: null, type: 'secret', name: 'shared', rateLimit: 3, now: T0 });
    const results = await Promise.all(Array.from({ length: 10 }, () => call(t, 'GET', '/events/search', { key: key.token })));
    const limited = results.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(results.filter((r) => r.status === 200).length).toBeGreaterThan(0);
    for (const r of limited) expect(r.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
  });
});
