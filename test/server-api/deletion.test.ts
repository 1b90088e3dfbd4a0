import { afterEach, describe, expect, it } from 'vitest';
import type { IdentifyResponse } from '../../src/protocol/index.js';
import { kyselyOf } from '../../src/service/store/index.js';
import { setWorkspaceDeletionEnabled } from '../../src/service/store/workspaces.js';
import { identifyRequest, postIdentify } from '../helpers/identify-request.js';
import { ENGINES, startTestService, type TestService } from '../helpers/test-service.js';
import { call, DAY, liftRateLimit, makeEvent, manualClock, seed, T0 } from './fixtures.js';

const HOUR = 60 * 60 * 1000;

/** One visit of a browser through the real ingestion endpoint. */
async function visit(t: TestService, token?: string): Promise<IdentifyResponse> {
  const res = await postIdentify(t.url, identifyRequest(t.keys.publicKey, token ? { token } : {}));
  expect(res.status).toBe(200);
  return res.json as IdentifyResponse;
}

describe.each(ENGINES)('visitor deletion and retention (%s)', (engine) => {
  let t: TestService | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  async function start(config = {}) {
    const clock = manualClock();
    t = await startTestService({ engine, clock: clock.now, config });
    await liftRateLimit(t);
    return { t, clock };
  }

  it('is refused with 403 feature_not_enabled unless the workspace enabled it', async () => {
    const { t } = await start();
    await seed(t, [makeEvent(T0 - HOUR, 'visOff')]);
    const v4 = await call(t, 'DELETE', '/v4/visitors/visOff');
    expect(v4.status).toBe(403);
    expect(v4.body).toEqual({ error: { code: 'feature_not_enabled', message: 'feature not enabled' } });
    const v3 = await call(t, 'DELETE', '/visitors/visOff');
    expect(v3.status).toBe(403);
    expect(v3.body.error.code).toBe('FeatureNotEnabled');
    await t.service.jobs.runOnce();
    expect((await call(t, 'GET', '/v4/events?visitor_id=visOff')).body.events).toHaveLength(1);
  });

  it('unknown visitor: 404 visitor_not_found (v3 VisitorNotFound); bad id: 400', async () => {
    const { t } = await start();
    await setWorkspaceDeletionEnabled(t.service.ctx.store, t.workspaceId, true);
    const v4 = await call(t, 'DELETE', '/v4/visitors/nobody');
    expect(v4.status).toBe(404);
    expect(v4.body).toEqual({ error: { code: 'visitor_not_found', message: 'visitor not found' } });
    expect((await call(t, 'DELETE', '/visitors/nobody')).body.error.code).toBe('VisitorNotFound');
    const bad = await call(t, 'DELETE', `/v4/visitors/${encodeURIComponent('a b')}`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('visitor_id');
  });

  it('deletes events of the last 10 days and the identity; older events stay; the browser gets a new visitor ID', async () => {
    const { t, clock } = await start();
    await setWorkspaceDeletionEnabled(t.service.ctx.store, t.workspaceId, true);

    // The browser visits twice through ingestion; it keeps its visitor ID through its token.
    clock.set(T0 - 2 * HOUR);
    const first = await visit(t);
    clock.set(T0 - HOUR);
    const second = await visit(t, first.token);
    expect(second.visitor_id).toBe(first.visitor_id);
    const visitorId = first.visitor_id;
    // Older history of the same visitor (imported): 5 and 12 days ago.
    const [recent, old] = await seed(t, [makeEvent(T0 - 5 * DAY, visitorId), makeEvent(T0 - 12 * DAY, visitorId)]);
    // Another visitor is untouched.
    const [bystander] = await seed(t, [makeEvent(T0 - HOUR, 'visBystander')]);

    clock.set(T0);
    const res = await call(t, 'DELETE', `/v4/visitors/${visitorId}`);
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    // Scheduled, not yet executed: still readable.
    expect((await call(t, 'GET', `/v4/events/${second.event_id}`)).status).toBe(200);

    clock.advance(10_000);
    await t.service.jobs.runOnce();

    for (const id of [first.event_id, second.event_id, recent!.event_id]) {
      const gone = await call(t, 'GET', `/v4/events/${id}`);
      expect(gone.status, id).toBe(404);
      expect(gone.body.error.code).toBe('event_not_found');
      expect((await call(t, 'GET', `/events/${id}`)).status).toBe(404);
    }
    expect((await call(t, 'GET', `/v4/events/${old!.event_id}`)).body).toEqual(old);
    expect((await call(t, 'GET', `/v4/events/${bystander!.event_id}`)).status).toBe(200);
    const remaining = await call(t, 'GET', `/v4/events?visitor_id=${visitorId}&start=${T0 - 30 * DAY}`);
    expect(remaining.body.events.map((e: { event_id: string }) => e.event_id)).toEqual([old!.event_id]);

    // The old token no longer resolves: the same browser is a new visitor.
    const after = await visit(t, second.token);
    expect(after.visitor_id).not.toBe(visitorId);
    expect(after.visitor_found).toBe(false);

    // The deletion record is done, with the count of events removed.
    const record = await kyselyOf(t.service.ctx.store).selectFrom('visitor_deletions').selectAll().executeTakeFirstOrThrow();
    expect(record).toMatchObject({ visitor_id: visitorId, status: 'done', deleted_events: 3 });
  });

  it('at most 30 deletions per hour per workspace: 429 (v3 with Retry-After), free again an hour later', async () => {
    const { t, clock } = await start();
    await setWorkspaceDeletionEnabled(t.service.ctx.store, t.workspaceId, true);
    await seed(t, Array.from({ length: 33 }, (_, i) => makeEvent(T0 - HOUR, `visH${i}`)));

    for (let i = 0; i < 30; i++) {
      clock.set(T0 + i * 1000);
      expect((await call(t, 'DELETE', `/v4/visitors/visH${i}`)).status).toBe(200);
    }
    clock.set(T0 + 30 * 1000);
    const v4 = await call(t, 'DELETE', '/v4/visitors/visH30');
    expect(v4.status).toBe(429);
    expect(v4.body.error.code).toBe('too_many_requests');
    expect(v4.headers.get('retry-after')).toBeNull();
    const v3 = await call(t, 'DELETE', '/visitors/visH30');
    expect(v3.status).toBe(429);
    expect(v3.body.error.code).toBe('TooManyRequests');
    // The oldest of the 30 (at T0) leaves the hour window at T0 + 1 h.
    expect(v3.headers.get('retry-after')).toBe(String(3600 - 30));

    clock.set(T0 + HOUR + 1);
    expect((await call(t, 'DELETE', '/v4/visitors/visH31')).status).toBe(200);
    expect((await call(t, 'DELETE', '/v4/visitors/visH32')).status).toBe(429);
  });

  it('concurrent deletion requests never get past the hourly limit', async () => {
    const { t } = await start();
    await setWorkspaceDeletionEnabled(t.service.ctx.store, t.workspaceId, true);
    await seed(t, Array.from({ length: 40 }, (_, i) => makeEvent(T0 - HOUR, `visC${i}`)));
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => call(t, 'DELETE', `/v4/visitors/visC${i}`)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(30);
    expect(results.filter((r) => r.status === 429)).toHaveLength(10);
    const rows = await kyselyOf(t.service.ctx.store).selectFrom('visitor_deletions').select('id').execute();
    expect(rows).toHaveLength(30);
  });

  it('at most 500 deletions per day per workspace', async () => {
    const { t, clock } = await start();
    await setWorkspaceDeletionEnabled(t.service.ctx.store, t.workspaceId, true);
    await seed(t, Array.from({ length: 501 }, (_, i) => makeEvent(T0 - HOUR, `visD${i}`)));
    // 21 per hour stays under the hourly limit; 500 of them fit in 23.8 hours.
    const step = 171_000;
    for (let i = 0; i < 500; i++) {
      clock.set(T0 + i * step);
      const res = await call(t, 'DELETE', `/v4/visitors/visD${i}`);
      expect(res.status, `deletion ${i}`).toBe(200);
    }
    clock.set(T0 + 500 * step);
    const v3 = await call(t, 'DELETE', '/visitors/visD500');
    expect(v3.status).toBe(429);
    expect(v3.body.error.message).toContain('day');
    expect(Number(v3.headers.get('retry-after'))).toBe(Math.ceil((T0 + DAY - (T0 + 500 * step)) / 1000));
  });

  it('retention purges events older than retentionDays, keeps the rest', async () => {
    const { t, clock } = await start({ retentionDays: 30 });
    const [kept, edge, purged, ancient] = await seed(t, [
      makeEvent(T0 - 29 * DAY, 'visRet'),
      makeEvent(T0 - 30 * DAY + 1000, 'visRet'),
      makeEvent(T0 - 30 * DAY - 1000, 'visRet'),
      makeEvent(T0 - 400 * DAY, 'visOld'),
    ]);
    await t.service.jobs.runOnce();
    for (const e of [kept, edge]) expect((await call(t, 'GET', `/v4/events/${e!.event_id}`)).status).toBe(200);
    for (const e of [purged, ancient]) expect((await call(t, 'GET', `/v4/events/${e!.event_id}`)).status).toBe(404);
    // Time passes: the next pass purges what aged out meanwhile.
    clock.advance(DAY);
    await t.service.jobs.runOnce();
    expect((await call(t, 'GET', `/v4/events/${edge!.event_id}`)).status).toBe(404);
    expect((await call(t, 'GET', `/v4/events/${kept!.event_id}`)).status).toBe(200);
  });
});
