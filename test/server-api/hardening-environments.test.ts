/**
 * Hardening (item 10): a secret key scoped to an environment reads and changes only that
 * environment's events and visitors; a workspace key (environment null) sees all of them.
 * The whole matrix: 2 environments x {scoped to A, scoped to B, workspace} x each route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { V4Event } from '../../src/events/v4-event.js';
import { createApiKey } from '../../src/service/store/api-keys.js';
import { getEvent } from '../../src/service/store/events.js';
import { createEnvironment } from '../../src/service/store/environments.js';
import { setWorkspaceDeletionEnabled } from '../../src/service/store/workspaces.js';
import { ENGINES, startTestService, type TestService } from '../helpers/test-service.js';
import { call, makeEvent, manualClock, seed, T0 } from './fixtures.js';

type Env = 'A' | 'B';
type KeyName = 'scopedA' | 'scopedB' | 'workspace';
const KEYS: KeyName[] = ['scopedA', 'scopedB', 'workspace'];
const ENVS: Env[] = ['A', 'B'];
const sees = (key: KeyName, env: Env) => key === 'workspace' || key === `scoped${env}`;

describe.each(ENGINES)('Server API hardening: environment-scoped keys (%s)', (engine) => {
  let t: TestService;
  const env: Record<Env, string> = { A: '', B: '' };
  const token: Record<KeyName, string> = { scopedA: '', scopedB: '', workspace: '' };
  const events: Record<Env, V4Event[]> = { A: [], B: [] };
  const visitorOf = (key: KeyName, e: Env) => `vis-${key}-${e}`;

  beforeAll(async () => {
    t = await startTestService({ engine, clock: manualClock().now });
    const store = t.service.ctx.store;
    await setWorkspaceDeletionEnabled(store, t.workspaceId, true);
    env.A = t.environmentId;
    env.B = (await createEnvironment(store, { workspaceId: t.workspaceId, name: 'B', now: T0 })).id;
    for (const name of KEYS) {
      const environmentId = name === 'workspace' ? null : env[name === 'scopedA' ? 'A' : 'B'];
      token[name] = (await createApiKey(store, { workspaceId: t.workspaceId, environmentId, type: 'secret', name, rateLimit: 1_000_000, now: T0 })).token;
    }
    for (const e of ENVS) {
      // One shared visitor per environment for reads, and one visitor per (key, environment) to delete.
      events[e] = await seed(t, [
        makeEvent(T0 - 1000, `vis-${e}`, { environment_id: env[e], linked_id: `order-${e}` }),
        ...KEYS.map((key) => makeEvent(T0 - 2000, visitorOf(key, e), { environment_id: env[e] })),
      ]);
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  const cases = KEYS.flatMap((key) => ENVS.map((e) => ({ key, env: e, visible: sees(key, e) })));

  it.each(cases)('$key, events of $env: v4 search and v3 search (visible: $visible)', async ({ key, env: e, visible }) => {
    const ids = events[e].map((x) => x.event_id).sort();
    const v4 = await call(t, 'GET', `/v4/events?limit=100&start=${T0 - 10_000}&end=${T0}`, { key: token[key] });
    expect(v4.status).toBe(200);
    const v4Ids = v4.body.events.map((x: V4Event) => x.event_id);
    for (const id of ids) expect(v4Ids.includes(id)).toBe(visible);
    // Asking for the other environment explicitly does not widen a scoped key.
    const asked = await call(t, 'GET', `/v4/events?environment=${env[e]}&start=${T0 - 10_000}&end=${T0}&limit=100`, { key: token[key] });
    expect(asked.body.events.length).toBe(visible ? ids.length : 0);
    const v3 = await call(t, 'GET', `/events/search?limit=100&start=${T0 - 10_000}&end=${T0}`, { key: token[key] });
    expect(v3.status).toBe(200);
    const v3Ids = v3.body.events.map((x: { products: { identification: { data: { requestId: string } } } }) => x.products.identification.data.requestId);
    for (const id of ids) expect(v3Ids.includes(id)).toBe(visible);
  });

  it.each(cases)('$key, event of $env: v4 GET and v3 GET (visible: $visible)', async ({ key, env: e, visible }) => {
    const id = events[e][0]!.event_id;
    const v4 = await call(t, 'GET', `/v4/events/${id}`, { key: token[key] });
    expect(v4.status).toBe(visible ? 200 : 404);
    if (!visible) expect(v4.body.error.code).toBe('event_not_found');
    const v3 = await call(t, 'GET', `/events/${id}`, { key: token[key] });
    expect(v3.status).toBe(visible ? 200 : 404);
  });

  it.each(cases)('$key, event of $env: v4 PATCH and v3 PUT (visible: $visible)', async ({ key, env: e, visible }) => {
    const id = events[e][0]!.event_id;
    const v4 = await call(t, 'PATCH', `/v4/events/${id}`, { key: token[key], body: { linked_id: `patched-by-${key}` } });
    expect(v4.status).toBe(visible ? 200 : 404);
    const v3 = await call(t, 'PUT', `/events/${id}`, { key: token[key], body: { tag: { by: key } } });
    expect(v3.status).toBe(visible ? 200 : 404);
    const stored = (await getEvent(t.service.ctx.store, t.workspaceId, id))!;
    if (visible) expect([stored.linked_id, stored.tags]).toEqual([`patched-by-${key}`, { by: key }]);
    else expect(stored.tags).not.toEqual({ by: key });
  });

  it.each(cases)('$key, visitor of $env: v3 visitor lookup (visible: $visible)', async ({ key, env: e, visible }) => {
    const res = await call(t, 'GET', `/visitors/vis-${e}`, { key: token[key] });
    expect(res.status).toBe(200);
    expect(res.body.visits.length).toBe(visible ? 1 : 0);
    const byRequest = await call(t, 'GET', `/visitors/vis-${e}?request_id=${events[e][0]!.event_id}`, { key: token[key] });
    expect(byRequest.body.visits.length).toBe(visible ? 1 : 0);
  });

  it.each(cases)('$key, visitor of $env: v4 and v3 DELETE (visible: $visible)', async ({ key, env: e, visible }) => {
    const visitor = visitorOf(key, e);
    const v4 = await call(t, 'DELETE', `/v4/visitors/${visitor}`, { key: token[key] });
    expect(v4.status).toBe(visible ? 200 : 404);
    if (!visible) expect(v4.body.error.code).toBe('visitor_not_found');
    const v3 = await call(t, 'DELETE', `/visitors/${visitor}`, { key: token[key] });
    expect(v3.status).toBe(visible ? 200 : 404);
  });

  it('a scoped key cannot delete a visitor that also has events in another environment', async () => {
    await seed(t, [makeEvent(T0 - 500, 'vis-both', { environment_id: env.A }), makeEvent(T0 - 400, 'vis-both', { environment_id: env.B })]);
    expect((await call(t, 'DELETE', '/v4/visitors/vis-both', { key: token.scopedA })).status).toBe(404);
    expect((await call(t, 'DELETE', '/v4/visitors/vis-both', { key: token.scopedB })).status).toBe(404);
    expect((await call(t, 'DELETE', '/v4/visitors/vis-both', { key: token.workspace })).status).toBe(200);
  });
});
