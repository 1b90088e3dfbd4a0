/**
 * The `./server` clients against the real service over HTTP (no mocks): every method, the
 * typed errors, the 429 retry, region/base URL resolution and async iteration.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { V4Event } from '../../src/events/v4-event.js';
import { toV3Event, toV3Visit } from '../../src/events/v4-to-v3.js';
import { LegacyServerApiClient, REGION_BASE_URLS, ServerApiClient, ServerApiError } from '../../src/server/index.js';
import { createApiKey } from '../../src/service/store/api-keys.js';
import { setWorkspaceDeletionEnabled } from '../../src/service/store/workspaces.js';
import { ENGINES, startTestService, type TestService } from '../helpers/test-service.js';
import { DAY, liftRateLimit, makeEvent, manualClock, newestFirst, seed, T0 } from '../server-api/fixtures.js';

const MIN = 60_000;

async function rejection(promise: Promise<unknown>): Promise<ServerApiError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ServerApiError);
    return err as ServerApiError;
  }
  throw new Error('expected the call to fail');
}

describe.each(ENGINES)('Server API clients against the service (%s)', (engine) => {
  let t: TestService;
  let client: ServerApiClient;
  let legacy: LegacyServerApiClient;
  let events: V4Event[];

  beforeAll(async () => {
    t = await startTestService({ engine, clock: manualClock().now });
    await liftRateLimit(t);
    client = new ServerApiClient({ apiKey: t.keys.secretKey, baseUrl: t.url });
    legacy = new LegacyServerApiClient({ apiKey: t.keys.secretKey, baseUrl: `${t.url}/` });
    events = await seed(
      t,
      Array.from({ length: 25 }, (_, i) => makeEvent(T0 - (i + 1) * MIN, i % 2 ? 'visOdd' : 'visEven', i % 5 === 0 ? { linked_id: 'five', vpn: true } : {})),
    );
    events.sort(newestFirst);
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('ServerApiClient (v4)', () => {
    it('getEvent returns the event; an unknown id throws ServerApiError 404 event_not_found', async () => {
      expect(await client.getEvent(events[0]!.event_id)).toEqual(events[0]);
      const err = await rejection(client.getEvent(`${T0}.nosuch`));
      expect(err).toMatchObject({ status: 404, code: 'event_not_found', message: 'event id not found', retryAfter: undefined });
    });

    it('searchEvents passes filters (Date window, environment list, booleans) and returns one page', async () => {
      const page = await client.searchEvents({
        visitor_id: 'visEven',
        vpn: true,
        environment: [t.environmentId, 'ae_other'],
        start: new Date(T0 - DAY),
        end: T0,
        limit: 2,
        total_hits: 100,
      });
      const want = events.filter((e) => e.identification!.visitor_id === 'visEven' && e.vpn === true);
      expect(page.events).toEqual(want.slice(0, 2));
      expect(page.total_hits).toBe(want.length);
      expect(typeof page.pagination_key).toBe('string');
      const rfc = await client.searchEvents({ linked_id: 'five', start: new Date(T0 - DAY).toISOString(), limit: 100 });
      expect(rfc.events).toEqual(events.filter((e) => e.linked_id === 'five'));
      expect(rfc.pagination_key).toBeUndefined();
    });

    it('iterateEvents walks every page: each event once, in order', async () => {
      const seen: string[] = [];
      for await (const event of client.iterateEvents({ limit: 4 })) seen.push(event.event_id);
      expect(seen).toEqual(events.map((e) => e.event_id));
      const reversed: string[] = [];
      for await (const page of client.iterateEventPages({ limit: 10, reverse: true, visitor_id: 'visOdd' })) {
        expect(page.events.length).toBeLessThanOrEqual(10);
        reversed.push(...page.events.map((e) => e.event_id));
      }
      expect(reversed).toEqual(events.filter((e) => e.identification!.visitor_id === 'visOdd').map((e) => e.event_id).reverse());
    });

    it('updateEvent changes only the given fields', async () => {
      const target = events[3]!;
      await client.updateEvent(target.event_id, { tags: { from: 'client' } });
      await client.updateEvent(target.event_id, { suspect: true });
      expect(await client.getEvent(target.event_id)).toEqual({ ...target, tags: { from: 'client' }, suspect: true });
      const bad = await rejection(client.updateEvent(target.event_id, {}));
      expect(bad).toMatchObject({ status: 400, code: 'request_cannot_be_parsed' });
    });

    it('deleteVisitor: 403 feature_not_enabled, then 200 once enabled', async () => {
      await seed(t, [makeEvent(T0 - MIN, 'visToDelete')]);
      const off = await rejection(client.deleteVisitor('visToDelete'));
      expect(off).toMatchObject({ status: 403, code: 'feature_not_enabled' });
      await setWorkspaceDeletionEnabled(t.service.ctx.store, t.workspaceId, true);
      try {
        await expect(client.deleteVisitor('visToDelete')).resolves.toBeUndefined();
        expect(await rejection(client.deleteVisitor('visNobody'))).toMatchObject({ status: 404, code: 'visitor_not_found' });
      } finally {
        await setWorkspaceDeletionEnabled(t.service.ctx.store, t.workspaceId, false);
      }
    });

    it('a wrong key throws 403 secret_api_key_not_found', async () => {
      const wrong = new ServerApiClient({ apiKey: t.keys.publicKey, baseUrl: t.url });
      expect(await rejection(wrong.searchEvents())).toMatchObject({ status: 403, code: 'secret_api_key_not_found' });
      expect(() => new ServerApiClient({ apiKey: '', baseUrl: t.url })).toThrow(TypeError);
    });

    it('region picks the regional origin; a custom fetch sees every request (with ii)', async () => {
      const seen: string[] = [];
      // A real fetch that redirects the regional origin to the test service.
      const viaTestService: typeof fetch = (input, init) => {
        const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
        seen.push(url);
        return fetch(url.replace(REGION_BASE_URLS.eu, t.url), init);
      };
      const eu = new ServerApiClient({ apiKey: t.keys.secretKey, region: 'eu', fetch: viaTestService });
      expect(await eu.getEvent(events[1]!.event_id)).toEqual(events[1]);
      expect(seen).toHaveLength(1);
      expect(seen[0]!.startsWith(`${REGION_BASE_URLS.eu}/v4/events/`)).toBe(true);
      expect(new URL(seen[0]!).searchParams.get('ii')).toMatch(/^tessera-id-server\//);
    });
  });

  describe('LegacyServerApiClient (v3)', () => {
    it('getVisits returns one page; iterateVisits follows paginationKey to the end', async () => {
      const page = await legacy.getVisits('visEven');
      expect(page.visitorId).toBe('visEven');
      const even = events.filter((e) => e.identification!.visitor_id === 'visEven');
      expect(page.visits).toEqual([toV3Visit(even[0]!)]);

      const linked: string[] = [];
      for await (const visit of legacy.iterateVisits('visEven', { linked_id: 'five', limit: 2 })) linked.push(visit.requestId);
      expect(linked).toEqual(even.filter((e) => e.linked_id === 'five').map((e) => e.event_id));
      const all: string[] = [];
      for await (const visit of legacy.iterateVisits('visEven', { limit: 5 })) all.push(visit.requestId);
      expect(all).toEqual(even.map((e) => e.event_id));
      // Without a limit the client still pages (the service only sends keys when one is given).
      const defaults: string[] = [];
      for await (const visit of legacy.iterateVisits('visEven')) defaults.push(visit.requestId);
      expect(defaults).toEqual(even.map((e) => e.event_id));
    });

    it('getEvent, updateEvent, searchEvents, iterateEvents', async () => {
      const target = events[5]!;
      expect(await legacy.getEvent(target.event_id)).toEqual(toV3Event(target));
      await legacy.updateEvent(target.event_id, { linkedId: 'legacy', tag: { v: 3 } });
      const after = await legacy.getEvent(target.event_id);
      expect(after.products.identification!.data).toMatchObject({ linkedId: 'legacy', tag: { v: 3 } });

      const search = await legacy.searchEvents({ visitor_id: 'visOdd', limit: 3 });
      expect(search.events).toHaveLength(3);
      expect(typeof search.paginationKey).toBe('string');
      const ids: string[] = [];
      for await (const e of legacy.iterateEvents({ visitor_id: 'visOdd', limit: 3 })) ids.push(e.products.identification!.data.requestId);
      expect(ids).toEqual(events.filter((e) => e.identification!.visitor_id === 'visOdd').map((e) => e.event_id));
    });

    it('typed v3 errors: codes from structured bodies, codes by status from plain ones', async () => {
      expect(await rejection(legacy.getEvent(`${T0}.nosuch`))).toMatchObject({ status: 404, code: 'RequestNotFound' });
      const plain = await rejection(legacy.getVisits('visEven', { limit: 501 }));
      expect(plain).toMatchObject({ status: 400, code: 'RequestCannotBeParsed' });
      expect(plain.message).toContain('limit');
      const old = await seed(t, [makeEvent(T0 - 20 * DAY, 'visEven')]);
      expect(await rejection(legacy.updateEvent(old[0]!.event_id, { suspect: true }))).toMatchObject({ status: 409, code: 'StateNotReady' });
      expect(await rejection(legacy.deleteVisitor('visEven'))).toMatchObject({ status: 403, code: 'FeatureNotEnabled' });
    });

    it('429 carries retryAfter; with retry enabled the client waits Retry-After and succeeds', async () => {
      const key = await createApiKey(t.service.ctx.store, { workspaceId: t.workspaceId, environmentId: null, type: 'secret', name: 'one per second', rateLimit: 1, now: T0 });
      const noRetry = new LegacyServerApiClient({ apiKey: key.token, baseUrl: t.url });
      const results = await Promise.allSettled([1, 2, 3].map(() => noRetry.getVisits('visEven')));
      const limited = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as ServerApiError);
      expect(limited.length).toBeGreaterThan(0);
      for (const err of limited) {
        expect(err).toMatchObject({ status: 429, code: 'TooManyRequests' });
        expect(err.retryAfter).toBeGreaterThanOrEqual(1);
      }

      const withRetry = new LegacyServerApiClient({ apiKey: key.token, baseUrl: t.url, retry: { maxRetries: 5 } });
      const pages = await Promise.all([1, 2].map(() => withRetry.getVisits('visEven')));
      for (const page of pages) expect(page.visitorId).toBe('visEven');

      // v4 has no Retry-After: the client backs off by its own delay.
      const v4 = new ServerApiClient({ apiKey: key.token, baseUrl: t.url, retry: { maxRetries: 5, delayMs: 300 } });
      const both = await Promise.all([1, 2].map(() => v4.searchEvents({ limit: 1 })));
      for (const page of both) expect(page.events).toHaveLength(1);
      const v4NoRetry = new ServerApiClient({ apiKey: key.token, baseUrl: t.url });
      const v4Results = await Promise.allSettled([1, 2, 3].map(() => v4NoRetry.searchEvents({ limit: 1 })));
      const v4Limited = v4Results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as ServerApiError);
      expect(v4Limited.length).toBeGreaterThan(0);
      for (const err of v4Limited) expect(err).toMatchObject({ status: 429, code: 'too_many_requests', retryAfter: undefined });
    });
  });
});
