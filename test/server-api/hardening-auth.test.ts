/**
 * Hardening of Server API authentication (items 5, 12): the key is checked first, before
 * parameters, path ids or bodies are validated, and a refused (403) or rate-limited (429)
 * request never runs a data query. Queries are counted with a Kysely plugin on the store:
 * deterministic, no timings.
 */
import type { KyselyPlugin, RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, setApiKeyRateLimit, setApiKeyStatus } from '../../src/service/store/api-keys.js';
import { internalsOf } from '../../src/service/store/handle.js';
import { ENGINES, startTestService, type TestService } from '../helpers/test-service.js';
import { call, makeEvent, seed, T0 } from './fixtures.js';

const ROUTES = [
  { method: 'GET', path: '/v4/events?limit=abc&bogus=1', v: 'v4' },
  { method: 'GET', path: '/v4/events/abc', v: 'v4' },
  { method: 'PATCH', path: '/v4/events/abc', v: 'v4', rawBody: '{not json' },
  { method: 'PATCH', path: `/v4/events/${T0}.aaaaaa`, v: 'v4', rawBody: '{"suspect":"yes"}' },
  { method: 'DELETE', path: '/v4/visitors/%20', v: 'v4' },
  { method: 'GET', path: '/events/search?limit=abc', v: 'v3' },
  { method: 'GET', path: '/events/abc', v: 'v3' },
  { method: 'PUT', path: '/events/abc', v: 'v3', rawBody: '{not json' },
  { method: 'DELETE', path: '/visitors/%20', v: 'v3' },
] as const;

/** Counts the statements that read or write `events`. */
function countEventQueries(t: TestService): { count(): number } {
  let n = 0;
  const plugin: KyselyPlugin = {
    transformQuery(args: { node: RootOperationNode }) {
      if (JSON.stringify(args.node).includes('"events"')) n++;
      return args.node;
    },
    transformResult: (args) => Promise.resolve(args.result),
  };
  const store = t.service.ctx.store;
  const internals = internalsOf(store);
  internals.db = internals.db.withPlugin(plugin);
  // Transactions (the PostgreSQL search runs in one) start from the store's own Kysely.
  const transaction = store.transaction.bind(store);
  store.transaction = (work) =>
    transaction((trx) => {
      internalsOf(trx).db = internalsOf(trx).db.withPlugin(plugin);
      return work(trx);
    });
  return { count: () => n };
}

describe.each(ENGINES)('Server API hardening: authentication first (%s)', (engine) => {
  let t: TestService;

  beforeAll(async () => {
    t = await startTestService({ engine });
    await seed(t, [makeEvent(Date.now() - 1000, 'visAuthFirst')]);
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(ROUTES)('$method $path: no key -> 403 required even with invalid parameters', async (route) => {
    const res = await call(t, route.method, route.path, { auth: 'none', ...('rawBody' in route ? { rawBody: route.rawBody } : {}) });
    expect(res.status, res.text).toBe(403);
    expect(res.body.error.code).toBe(route.v === 'v4' ? 'secret_api_key_required' : 'TokenRequired');
  });

  it.each(ROUTES)('$method $path: unknown key -> 403 not found even with invalid parameters', async (route) => {
    const res = await call(t, route.method, route.path, { key: 'no-such-key-000000000000', ...('rawBody' in route ? { rawBody: route.rawBody } : {}) });
    expect(res.status, res.text).toBe(403);
    expect(res.body.error.code).toBe(route.v === 'v4' ? 'secret_api_key_not_found' : 'TokenNotFound');
  });

  it('the v3 visitor lookup checks the key before its parameters too', async () => {
    const res = await call(t, 'GET', '/visitors/visAuthFirst?limit=abc', { auth: 'none' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'secret API key in header is missing or empty' });
  });

  it('a rate-limited or disabled key never runs the data query, even for a key seen before', async () => {
    const store = t.service.ctx.store;
    const key = await createApiKey(store, { workspaceId: t.workspaceId, environmentId: null, type: 'secret', name: 'limited', now: T0 });
    const reads = [
      ['GET', '/v4/events?visitor_id=visAuthFirst'],
      ['GET', `/v4/events/${T0}.aaaaaa`],
      ['GET', `/events/${T0}.aaaaaa`],
      ['GET', '/events/search?visitor_id=visAuthFirst'],
      ['GET', '/visitors/visAuthFirst'],
    ] as const;
    // Seen and allowed once (the service may remember the key).
    for (const [method, path] of reads) expect((await call(t, method, path, { key: key.token })).status).not.toBe(403);
    const queries = countEventQueries(t);

    await setApiKeyRateLimit(store, key.id, 0);
    for (const [method, path] of reads) {
      const res = await call(t, method, path, { key: key.token });
      expect(res.status, path).toBe(429);
    }
    expect(queries.count()).toBe(0);

    await setApiKeyRateLimit(store, key.id, 1_000_000);
    await setApiKeyStatus(store, key.id, 'disabled', T0);
    for (const [method, path] of reads) expect((await call(t, method, path, { key: key.token })).status).toBe(403);
    expect(queries.count()).toBe(0);

    // The counter does count: an allowed search reads events.
    expect((await call(t, 'GET', '/v4/events?visitor_id=visAuthFirst')).status).toBe(200);
    expect(queries.count()).toBeGreaterThan(0);
  });
});
