import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { V4Event } from '../../src/events/v4-event.js';
import { toV3Event, toV3Visit } from '../../src/events/v4-to-v3.js';
import { ENGINES, startTestService, type TestService } from '../helpers/test-service.js';
import { call, DAY, liftRateLimit, makeEvent, manualClock, newestFirst, seed, T0 } from './fixtures.js';

const MIN = 60_000;

describe.each(ENGINES)('legacy Server API v3 (%s)', (engine) => {
  let t: TestService;
  /** 23 events of one visitor, newest first; every 4th carries linked id L. */
  let history: V4Event[];

  beforeAll(async () => {
    t = await startTestService({ engine, clock: manualClock().now });
    await liftRateLimit(t);
    history = await seed(
      t,
      Array.from({ length: 23 }, (_, i) =>
        makeEvent(T0 - (i + 1) * MIN, 'visHist', i % 4 === 1 ? { linked_id: 'L', tags: { n: i } } : {}),
      ),
    );
    history.sort(newestFirst);
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('GET /visitors/:visitor_id', () => {
    /** Follows paginationKey until it is absent; returns every page. */
    async function pages(query: string) {
      const out: { visits: any[]; paginationKey?: string; lastTimestamp?: number }[] = [];
      let key: string | undefined;
      for (let i = 0; i < 100; i++) {
        const res = await call(t, 'GET', `/visitors/visHist?${query}${key ? `&paginationKey=${key}` : ''}`);
        expect(res.status, res.text).toBe(200);
        expect(res.body.visitorId).toBe('visHist');
        out.push(res.body);
        key = res.body.paginationKey;
        if (key === undefined) return out;
      }
      throw new Error('pagination did not end');
    }

    it('returns the newest visit in the v3 visit shape', async () => {
      const res = await call(t, 'GET', '/visitors/visHist');
      expect(res.status).toBe(200);
      expect(res.body.visits).toEqual([toV3Visit(history[0]!)]);
      const visit = res.body.visits[0];
      for (const field of ['requestId', 'browserDetails', 'incognito', 'ip', 'timestamp', 'time', 'url', 'tag', 'confidence', 'visitorFound', 'firstSeenAt', 'lastSeenAt']) {
        expect(visit, field).toHaveProperty(field);
      }
      expect(visit.firstSeenAt).toEqual({ global: new Date(history[0]!.timestamp - DAY).toISOString(), subscription: new Date(history[0]!.timestamp - DAY).toISOString() });
      // Without a pagination parameter there is no pagination key, even though more exist.
      expect('paginationKey' in res.body).toBe(false);
      expect('lastTimestamp' in res.body).toBe(false);
    });

    it('linked_id filter with a small limit: pages are cut while scanning, each visit exactly once', async () => {
      const all = await pages('linked_id=L&limit=3'); // matches are 4 apart: some pages scan none
      const want = history.filter((e) => e.linked_id === 'L').map((e) => e.event_id);
      const got = all.flatMap((p) => p.visits.map((v) => v.requestId));
      expect(got).toEqual(want);
      for (const p of all) expect(p.visits.length).toBeLessThanOrEqual(1);
      // Some page scanned 3 events without a match, yet pagination went on.
      expect(all.some((p) => p.visits.length === 0 && p.paginationKey !== undefined)).toBe(true);
      // The key names the last returned (or, on an empty page, the last scanned) event.
      for (const p of all.slice(0, -1)) {
        const named = history.find((e) => e.event_id === p.paginationKey)!;
        expect(p.lastTimestamp).toBe(named.timestamp);
        if (p.visits.length === 1) expect(p.paginationKey).toBe(p.visits[0].requestId);
      }
      expect(all.at(-1)!.paginationKey).toBeUndefined();
    });

    it('exact scan accounting: an empty page advances by exactly `limit` events', async () => {
      // history[1] is the first L event; scanning from history[1] exclusive, the next L is history[5].
      const first = await call(t, 'GET', '/visitors/visHist?linked_id=L&limit=3');
      expect(first.body.visits.map((v: any) => v.requestId)).toEqual([history[1]!.event_id]);
      expect(first.body.paginationKey).toBe(history[1]!.event_id);
      const second = await call(t, 'GET', `/visitors/visHist?linked_id=L&limit=3&paginationKey=${history[1]!.event_id}`);
      expect(second.body.visits).toEqual([]);
      expect(second.body.paginationKey).toBe(history[4]!.event_id); // scanned 2, 3, 4
      const third = await call(t, 'GET', `/visitors/visHist?linked_id=L&limit=3&paginationKey=${history[4]!.event_id}`);
      expect(third.body.visits.map((v: any) => v.requestId)).toEqual([history[5]!.event_id]);
    });

    it('without filters, pages walk the whole history one visit at a time', async () => {
      const all = await pages('limit=10');
      expect(all.flatMap((p) => p.visits.map((v) => v.requestId))).toEqual(history.map((e) => e.event_id));
    });

    it('request_id filter finds the event only when it is within the scanned events', async () => {
      const target = history[7]!;
      const within = await call(t, 'GET', `/visitors/visHist?request_id=${target.event_id}&limit=8`);
      expect(within.body.visits.map((v: any) => v.requestId)).toEqual([target.event_id]);
      const outside = await call(t, 'GET', `/visitors/visHist?request_id=${target.event_id}&limit=7`);
      expect(outside.body.visits).toEqual([]);
      expect(outside.body.paginationKey).toBe(history[6]!.event_id);
      expect((await call(t, 'GET', `/visitors/visHist?request_id=${target.event_id}`)).body.visits).toHaveLength(1);
    });

    it('before (deprecated) starts the scan at a timestamp', async () => {
      const res = await call(t, 'GET', `/visitors/visHist?before=${history[9]!.timestamp}&limit=2`);
      expect(res.body.visits.map((v: any) => v.requestId)).toEqual([history[10]!.event_id]);
      expect(res.body.paginationKey).toBe(history[10]!.event_id);
      expect(res.body.lastTimestamp).toBe(history[10]!.timestamp);
    });

    it('limit: default 100, max 500, 0 means the default', async () => {
      expect((await call(t, 'GET', '/visitors/visHist?limit=500')).status).toBe(200);
      const zero = await call(t, 'GET', '/visitors/visHist?limit=0&linked_id=none');
      expect(zero.body).toEqual({ visitorId: 'visHist', visits: [] }); // 23 < 100 scanned: nothing left
    });

    it('an unknown visitor has no visits', async () => {
      const res = await call(t, 'GET', '/visitors/nobodyAtAll');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ visitorId: 'nobodyAtAll', visits: [] });
    });

    it.each([
      ['limit=501', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=ten', 'limit'],
      ['before=yesterday', 'before'],
      ['paginationKey=1.nosuch', 'paginationKey'],
      ['paginationKey=bad%20key', 'paginationKey'],
      ['linked_id=', 'linked_id'],
    ])('malformed %s -> 400 with a plain error naming %s', async (query, parameter) => {
      const res = await call(t, 'GET', `/visitors/visHist?${query}`);
      expect(res.status).toBe(400);
      expect(typeof res.body.error).toBe('string');
      expect(res.body.error).toContain(parameter);
    });
  });

  describe('events', () => {
    it('GET /events/:request_id answers the nested products format', async () => {
      const event = history[1]!;
      const res = await call(t, 'GET', `/events/${event.event_id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(toV3Event(event));
      expect(res.body.products.identification.data).toMatchObject({ visitorId: 'visHist', requestId: event.event_id, linkedId: 'L', tag: { n: 1 } });
      expect(res.body.products.botd.data.bot).toEqual({ result: 'notDetected' });
      expect(res.body.products.incognito.data).toEqual({ result: false });
    });

    it('GET /events/:request_id of an unknown id: 404 RequestNotFound', async () => {
      const res = await call(t, 'GET', `/events/${T0}.nosuch`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 'RequestNotFound', message: 'event id not found' } });
    });

    it('PUT /events/:request_id updates linkedId, tag, suspect (only those given)', async () => {
      const [event] = await seed(t, [makeEvent(T0 - 5 * DAY, 'visPut', { linked_id: 'a', tags: { k: 1 } })]);
      const id = event!.event_id;
      const put = await call(t, 'PUT', `/events/${id}`, { body: { linkedId: 'b' } });
      expect(put.status).toBe(200);
      expect(put.text).toBe('');
      expect((await call(t, 'GET', `/v4/events/${id}`)).body).toEqual({ ...event, linked_id: 'b' });
      await call(t, 'PUT', `/events/${id}`, { body: { tag: { k: 2 }, suspect: true } });
      const v3 = (await call(t, 'GET', `/events/${id}`)).body.products.identification.data;
      expect(v3).toMatchObject({ linkedId: 'b', tag: { k: 2 }, suspect: true });
      // v4 field names mean nothing to v3.
      const wrongNames = await call(t, 'PUT', `/events/${id}`, { body: { linked_id: 'c' } });
      expect(wrongNames.status).toBe(400);
      expect(wrongNames.body.error.code).toBe('RequestCannotBeParsed');
      const badType = await call(t, 'PUT', `/events/${id}`, { body: { tag: 'x' } });
      expect(badType.body.error).toEqual({ code: 'RequestCannotBeParsed', message: 'invalid tag: expected a JSON object' });
    });

    it('PUT of an event older than 10 days: 409 StateNotReady; unknown: 404 RequestNotFound', async () => {
      const [old] = await seed(t, [makeEvent(T0 - 11 * DAY, 'visPut')]);
      const res = await call(t, 'PUT', `/events/${old!.event_id}`, { body: { suspect: true } });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: { code: 'StateNotReady', message: 'resource is not mutable yet, try again' } });
      const missing = await call(t, 'PUT', `/events/${T0}.nosuch`, { body: { suspect: true } });
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('RequestNotFound');
    });

    it('GET /events/search: filters, v3 events, paginationKey across pages', async () => {
      const want = history.map((e) => e.event_id);
      const got: string[] = [];
      let key: string | undefined;
      do {
        const res = await call(t, 'GET', `/events/search?visitor_id=visHist&limit=7${key ? `&paginationKey=${key}` : ''}`);
        expect(res.status).toBe(200);
        for (const e of res.body.events) got.push(e.products.identification.data.requestId);
        key = res.body.paginationKey;
      } while (key !== undefined);
      expect(got).toEqual(want);

      const linked = await call(t, 'GET', '/events/search?visitor_id=visHist&linked_id=L&limit=100&ii=x');
      expect(linked.body.events).toEqual(history.filter((e) => e.linked_id === 'L').map(toV3Event));
      expect('paginationKey' in linked.body).toBe(false);
      // The snake_case cursor name is accepted too.
      const first = await call(t, 'GET', '/events/search?visitor_id=visHist&limit=2');
      const next = await call(t, 'GET', `/events/search?visitor_id=visHist&limit=2&pagination_key=${first.body.paginationKey}`);
      expect(next.body.events.map((e: any) => e.products.identification.data.requestId)).toEqual(want.slice(2, 4));
    });

    it('GET /events/search with a bad parameter: 400 RequestCannotBeParsed', async () => {
      const res = await call(t, 'GET', '/events/search?limit=1000');
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('RequestCannotBeParsed');
      expect(res.body.error.message).toContain('limit');
    });
  });
});
