import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { V4Event } from '../../src/events/v4-event.js';
import { createEnvironment } from '../../src/service/store/environments.js';
import { ENGINES, startTestService, type TestService } from '../helpers/test-service.js';
import { call, DAY, liftRateLimit, makeEvent, manualClock, newestFirst, seed, T0 } from './fixtures.js';

const HOUR = 60 * 60 * 1000;

describe.each(ENGINES)('GET /v4/events search (%s)', (engine) => {
  let t: TestService;
  let otherEnv: string;
  let events: V4Event[];

  beforeAll(async () => {
    t = await startTestService({ engine, clock: manualClock().now });
    await liftRateLimit(t);
    otherEnv = (await createEnvironment(t.service.ctx.store, { workspaceId: t.workspaceId, name: 'staging', now: T0 })).id;
    const lacking = makeEvent(T0 - 3 * DAY, 'visD');
    delete lacking.bot;
    delete lacking.incognito;
    events = await seed(t, [
      makeEvent(T0 - 1 * HOUR, 'visA'),
      makeEvent(T0 - 2 * HOUR, 'visA', { linked_id: 'order-1', tags: { cart: 3 } }),
      makeEvent(T0 - 3 * HOUR, 'visA'),
      makeEvent(T0 - 1 * DAY, 'visB', {
        ip_address: '198.51.100.20',
        url: 'https://other.example/x?y=1',
        vpn: true,
        incognito: true,
        bot: 'bad',
        suspect: true,
        suspect_score: 30,
        tampering: true,
        sdk: { platform: 'js', version: '0.2.0' },
      }),
      makeEvent(T0 - 2 * DAY, 'visC', {
        ip_address: '2001:db8::5',
        bot: 'good',
        developer_tools: true,
        virtual_machine: false,
        privacy_settings: true,
        suspect_score: 10,
        environment_id: otherEnv,
      }),
      lacking,
      makeEvent(T0 - 8 * DAY, 'visA', { linked_id: 'order-1' }),
      ...Array.from({ length: 12 }, (_, i) => makeEvent(T0 - 4 * DAY - i * HOUR, 'visMany', { ip_address: '198.51.100.99' })),
    ]);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The oracle: seeded events inside the default window that satisfy `keep`, in search order. */
  const expected = (keep: (e: V4Event) => boolean, start = T0 - 7 * DAY, end = T0) =>
    events
      .filter((e) => e.timestamp >= start && e.timestamp <= end && keep(e))
      .sort(newestFirst)
      .map((e) => e.event_id);

  /** Follows pagination_key until the last page, `limit` at a time. */
  async function allIds(query: string, limit = 3): Promise<string[]> {
    const ids: string[] = [];
    let key: string | undefined;
    for (let page = 0; page < 50; page++) {
      const sep = query ? '&' : '';
      const res = await call(t, 'GET', `/v4/events?${query}${sep}limit=${limit}${key ? `&pagination_key=${encodeURIComponent(key)}` : ''}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.events.length).toBeLessThanOrEqual(limit);
      ids.push(...res.body.events.map((e: V4Event) => e.event_id));
      key = res.body.pagination_key;
      if (key === undefined) return ids;
    }
    throw new Error('pagination did not end');
  }

  it('defaults: last 7 days, newest first, 10 events, pagination_key when more', async () => {
    const res = await call(t, 'GET', '/v4/events');
    expect(res.status).toBe(200);
    const all = expected(() => true);
    expect(res.body.events.map((e: V4Event) => e.event_id)).toEqual(all.slice(0, 10));
    expect(typeof res.body.pagination_key).toBe('string');
    expect('total_hits' in res.body).toBe(false);
    expect(await allIds('')).toEqual(all);
  });

  it('returns the stored v4 event unchanged', async () => {
    const res = await call(t, 'GET', '/v4/events?visitor_id=visB');
    expect(res.body.events).toEqual([events.find((e) => e.identification?.visitor_id === 'visB')]);
  });

  const filters: [string, (e: V4Event) => boolean][] = [
    ['visitor_id=visA', (e) => e.identification?.visitor_id === 'visA'],
    ['linked_id=order-1', (e) => e.linked_id === 'order-1'],
    ['visitor_id=visA&linked_id=order-1', (e) => e.identification?.visitor_id === 'visA' && e.linked_id === 'order-1'],
    ['ip_address=198.51.100.20', (e) => e.ip_address === '198.51.100.20'],
    ['ip_address=198.51.100.0%2F24', (e) => e.ip_address!.startsWith('198.51.100.')],
    ['ip_address=198.51.100.99%2F32', (e) => e.ip_address === '198.51.100.99'],
    ['ip_address=2001%3Adb8%3A%3A%2F32', (e) => e.ip_address!.startsWith('2001:db8:')],
    ['ip_address=10.0.0.0%2F8', () => false],
    ['url=' + encodeURIComponent('https://other.example/x?y=1'), (e) => e.url === 'https://other.example/x?y=1'],
    ['origin=' + encodeURIComponent('https://other.example'), (e) => e.url!.startsWith('https://other.example/')],
    ['suspect=true', (e) => e.suspect === true],
    ['suspect=false', (e) => e.suspect !== true],
    ['bot=all', (e) => e.bot === 'good' || e.bot === 'bad'],
    ['bot=good', (e) => e.bot === 'good'],
    ['bot=bad', (e) => e.bot === 'bad'],
    ['bot=none', (e) => e.bot === 'not_detected'],
    ['incognito=true', (e) => e.incognito === true],
    ['incognito=false', (e) => e.incognito === false],
    ['vpn=true', (e) => e.vpn === true],
    ['vpn=false', (e) => e.vpn === false],
    ['tampering=true', (e) => e.tampering === true],
    ['virtual_machine=false', (e) => e.virtual_machine === false],
    ['developer_tools=true', (e) => e.developer_tools === true],
    ['privacy_settings=true', (e) => e.privacy_settings === true],
    ['min_suspect_score=20', (e) => (e.suspect_score ?? -1) >= 20],
    ['min_suspect_score=5', (e) => (e.suspect_score ?? -1) >= 5],
    ['sdk_version=0.2.0', (e) => e.sdk?.version === '0.2.0'],
    ['sdk_platform=js', (e) => e.sdk?.platform === 'js'],
    ['sdk_platform=ios', () => false],
  ];
  it.each(filters)('filter %s', async (query, keep) => {
    const want = expected(keep);
    expect(await allIds(query)).toEqual(want);
  });

  it('a signal filter drops events that lack the signal', async () => {
    const lacking = events.find((e) => e.identification?.visitor_id === 'visD')!;
    for (const q of ['bot=none', 'incognito=false', 'bot=all', 'incognito=true']) {
      expect(await allIds(q), q).not.toContain(lacking.event_id);
    }
    expect(await allIds('visitor_id=visD')).toEqual([lacking.event_id]);
  });

  it('environment filter, repeated keys for several environments', async () => {
    expect(await allIds(`environment=${otherEnv}`)).toEqual(expected((e) => e.environment_id === otherEnv));
    expect(await allIds(`environment=${t.environmentId}`)).toEqual(expected((e) => e.environment_id === t.environmentId));
    expect(await allIds(`environment=${t.environmentId}&environment=${otherEnv}`)).toEqual(expected(() => true));
  });

  it('time window: start and end as Unix ms or RFC 3339, inclusive', async () => {
    const start = T0 - 2 * DAY;
    const end = T0 - 2 * HOUR;
    const want = expected(() => true, start, end);
    expect(want.length).toBeGreaterThan(2);
    expect(await allIds(`start=${start}&end=${end}`)).toEqual(want);
    const iso = (ms: number) => encodeURIComponent(new Date(ms).toISOString());
    expect(await allIds(`start=${iso(start)}&end=${iso(end)}`)).toEqual(want);
    expect(await allIds(`start=${encodeURIComponent('2026-01-13T13:00:00+01:00')}&end=${end}`)).toEqual(want);
    // Older events are reachable with an explicit window.
    expect(await allIds(`visitor_id=visA&start=${T0 - 30 * DAY}`)).toEqual(
      expected((e) => e.identification?.visitor_id === 'visA', T0 - 30 * DAY),
    );
    // Only `end`: the window is the 7 days before it.
    expect(await allIds(`end=${T0 - 3 * DAY}`)).toEqual(expected(() => true, T0 - 10 * DAY, T0 - 3 * DAY));
  });

  it('reverse: oldest first, across pages', async () => {
    const want = expected(() => true).reverse();
    expect(await allIds('reverse=true', 4)).toEqual(want);
  });

  it('total_hits counts matches up to the number asked', async () => {
    const all = expected(() => true);
    const res = await call(t, 'GET', '/v4/events?total_hits=1000&limit=2');
    expect(res.body.total_hits).toBe(all.length);
    expect(res.body.events).toHaveLength(2);
    expect((await call(t, 'GET', '/v4/events?total_hits=5')).body.total_hits).toBe(5);
    const cidr = await call(t, 'GET', '/v4/events?total_hits=100&ip_address=198.51.100.0%2F24&limit=1');
    expect(cidr.body.total_hits).toBe(expected((e) => e.ip_address!.startsWith('198.51.100.')).length);
  });

  it('pagination is stable under concurrent inserts', async () => {
    const first = await call(t, 'GET', '/v4/events?visitor_id=visMany&limit=5');
    const before = expected((e) => e.identification?.visitor_id === 'visMany');
    expect(first.body.events.map((e: V4Event) => e.event_id)).toEqual(before.slice(0, 5));
    // A newer event arrives, and one with the very timestamp of the page's last event.
    const lastOfPage = first.body.events[4] as V4Event;
    const inserted = await seed(t, [
      makeEvent(T0 - 30 * 60 * 1000, 'visMany', { ip_address: '198.51.100.99' }),
      makeEvent(lastOfPage.timestamp, 'visMany', { event_id: `${lastOfPage.timestamp}.zzzzzz`, ip_address: '198.51.100.99' }),
    ]);
    events.push(...inserted);
    const rest: string[] = [];
    let key: string | undefined = first.body.pagination_key;
    while (key !== undefined) {
      const res = await call(t, 'GET', `/v4/events?visitor_id=visMany&limit=5&pagination_key=${key}`);
      rest.push(...res.body.events.map((e: V4Event) => e.event_id));
      key = res.body.pagination_key;
    }
    // No repeats and no gaps; the newer insert belongs before page one, so it never appears.
    expect([...first.body.events.map((e: V4Event) => e.event_id), ...rest]).toEqual(before);
  });

  it('ignores the SDKs\' ii parameter; any other unknown parameter is a 400', async () => {
    const plain = await call(t, 'GET', '/v4/events?visitor_id=visA');
    const extra = await call(t, 'GET', '/v4/events?visitor_id=visA&ii=tessera-id-server%2F1.0.0');
    expect(extra.status).toBe(200);
    expect(extra.body).toEqual(plain.body);
    const unknown = await call(t, 'GET', '/v4/events?visitor_id=visA&whatever=1');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toBe('unsupported filter: whatever');
  });

  it.each([
    ['limit=abc', 'limit'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=1.5', 'limit'],
    ['start=yesterday', 'start'],
    ['end=2026-13-45', 'end'],
    [`start=${T0}&end=${T0 - 1}`, 'start'],
    ['bot=maybe', 'bot'],
    ['incognito=yes', 'incognito'],
    ['suspect=1', 'suspect'],
    ['reverse=up', 'reverse'],
    ['pagination_key=not-a-key', 'pagination_key'],
    ['ip_address=999.1.1.1', 'ip_address'],
    ['ip_address=10.0.0.0%2F33', 'ip_address'],
    ['min_suspect_score=-1', 'min_suspect_score'],
    ['total_hits=0', 'total_hits'],
    ['total_hits=1001', 'total_hits'],
    ['visitor_id=a&visitor_id=b', 'visitor_id'],
    ['linked_id=', 'linked_id'],
  ])('malformed %s -> 400 naming %s', async (query, parameter) => {
    const res = await call(t, 'GET', `/v4/events?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('request_cannot_be_parsed');
    expect(res.body.error.message).toContain(parameter);
  });
});
