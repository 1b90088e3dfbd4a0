/**
 * Hardening of the search (items 8, 13): every filter of the reference SDKs that maps to a
 * stored field is applied (columns or the payload JSON), the others and unknown parameters are
 * a 400, never ignored; a search reads at most SEARCH_SCAN_BUDGET events per request and
 * continues with a pagination_key; CIDR filters compare the normalised `ip_sort` key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { V4Event } from '../../src/events/v4-event.js';
import { eventColumns } from '../../src/service/store/events.js';
import { SEARCH_SCAN_BUDGET } from '../../src/service/store/event-search.js';
import { kyselyOf } from '../../src/service/store/index.js';
import { ENGINES, startTestService, type TestService } from '../helpers/test-service.js';
import { call, DAY, liftRateLimit, makeEvent, manualClock, seed, T0 } from './fixtures.js';

describe.each(ENGINES)('Server API hardening: search filters and budget (%s)', (engine) => {
  let t: TestService;
  const byName: Record<string, V4Event> = {};

  beforeAll(async () => {
    t = await startTestService({ engine, clock: manualClock().now });
    await liftRateLimit(t);
    const named: [string, Partial<V4Event>][] = [
      ['plain', { proxy: false, vpn_confidence: 'low', high_activity_device: false, rare_device: false, ip_blocklist: { email_spam: false, attack_source: false, tor_node: false } }],
      ['proxy', { proxy: true, vpn_confidence: 'high' }],
      ['blocked', { ip_blocklist: { email_spam: false, attack_source: true, tor_node: false }, high_activity_device: true }],
      ['tor', { ip_blocklist: { email_spam: false, attack_source: false, tor_node: true }, rare_device: true }],
      ['antidetect', { tampering: true, tampering_details: { anomaly_score: 0.9, anti_detect_browser: true } }],
      ['mobile', { jailbroken: true, frida: false, root_apps: true, emulator: false, cloned_app: true, mitm_attack: false, location_spoofing: true, bundle_id: 'com.example.app', package_name: 'com.example.android', proximity: { id: 'px1', precision_radius: 10, confidence: 0.9 } }],
      ['asn', { ip_info: { v4: { address: '203.0.113.7', asn: '64500', asn_name: 'x', asn_network: '203.0.113.0/24', datacenter_result: true, datacenter_name: 'dc' } } }],
      ['v6', { ip_address: '2001:db8::1:0:7' }],
      ['mapped', { ip_address: '10.20.30.40' }],
    ];
    let i = 0;
    for (const [name, overrides] of named) {
      byName[name] = (await seed(t, [makeEvent(T0 - ++i * 1000, `vis-${name}`, overrides)]))[0]!;
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  async function names(query: string, path = '/v4/events'): Promise<string[]> {
    const res = await call(t, 'GET', `${path}?limit=100&${query}`);
    expect(res.status, res.text).toBe(200);
    const ids: string[] = res.body.events.map((e: V4Event & { products?: { identification: { data: { requestId: string } } } }) =>
      e.products ? e.products.identification.data.requestId : e.event_id);
    return Object.entries(byName).filter(([, e]) => ids.includes(e.event_id)).map(([n]) => n).sort();
  }

  it.each([
    ['proxy=true', ['proxy']],
    ['proxy=false', ['plain']],
    ['vpn_confidence=high', ['proxy']],
    ['vpn_confidence=low', ['plain']],
    ['ip_blocklist=true', ['blocked', 'tor']],
    ['ip_blocklist=false', ['plain']],
    ['tor_node=true', ['tor']],
    ['high_activity=true', ['blocked']],
    ['rare_device=true', ['tor']],
    ['rare_device=false', ['plain']],
    ['anti_detect_browser=true', ['antidetect']],
    ['jailbroken=true', ['mobile']],
    ['frida=false', ['mobile']],
    ['root_apps=true', ['mobile']],
    ['emulator=true', []],
    ['cloned_app=true', ['mobile']],
    ['mitm_attack=false', ['mobile']],
    ['location_spoofing=true', ['mobile']],
    ['bundle_id=com.example.app', ['mobile']],
    ['package_name=com.example.android', ['mobile']],
    ['proximity_id=px1', ['mobile']],
    ['asn=64500', ['asn']],
    ['datacenter=true', ['asn']],
    ['ip_address=2001:db8::/32', ['v6']],
    ['ip_address=2001:db8::1:0:7/128', ['v6']],
    ['ip_address=10.0.0.0/8', ['mapped']],
    ['ip_address=10.20.30.40/31', ['mapped']],
    ['ip_address=::ffff:10.20.0.0/112', ['mapped']],
    ['ip_address=10.20.30.41/32', []],
  ])('%s is applied (v4 and v3)', async (query, expected) => {
    expect(await names(query)).toEqual(expected);
    expect(await names(query, '/events/search')).toEqual(expected);
  });

  it.each(['factory_reset=true', 'simulator=true', 'incremental_identification_status=completed', 'bot_type=x', 'whatever=1', 'visitorId=x'])(
    '%s: not applicable to stored events or unknown -> 400 unsupported filter (v4 and v3)',
    async (query) => {
      const name = query.split('=')[0];
      for (const path of ['/v4/events', '/events/search']) {
        const res = await call(t, 'GET', `${path}?${query}`);
        expect(res.status, path).toBe(400);
        expect(res.body.error.message).toBe(`unsupported filter: ${name}`);
      }
    },
  );

  it('v3 search refuses total_hits (not part of v3) instead of ignoring it', async () => {
    const res = await call(t, 'GET', '/events/search?total_hits=10');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('RequestCannotBeParsed');
  });

  it('a broad search reads at most the scan budget per request and continues with pagination_key', async () => {
    // SEARCH_SCAN_BUDGET newer events outside the CIDR range, one older event inside it.
    const db = kyselyOf(t.service.ctx.store);
    const start = T0 - 3 * DAY;
    const rows = Array.from({ length: SEARCH_SCAN_BUDGET }, (_, i) =>
      eventColumns(makeEvent(start + 1000 + i, `vis-bulk-${i % 50}`, { ip_address: '198.51.100.1', environment_id: t.environmentId }), {
        workspaceId: t.workspaceId,
        environmentId: t.environmentId,
      }),
    );
    for (let i = 0; i < rows.length; i += 400) await db.insertInto('events').values(rows.slice(i, i + 400)).execute();
    const [target] = await seed(t, [makeEvent(start, 'vis-target', { ip_address: '192.0.2.77' })]);
    const window = `start=${start}&end=${start + 1000 + SEARCH_SCAN_BUDGET}`;

    const first = await call(t, 'GET', `/v4/events?ip_address=192.0.2.0/24&${window}&total_hits=100`);
    expect(first.status).toBe(200);
    expect(first.body.events).toEqual([]);
    expect(typeof first.body.pagination_key).toBe('string');
    expect(first.body.total_hits).toBe(0); // counted within the budget: a lower bound
    const second = await call(t, 'GET', `/v4/events?ip_address=192.0.2.0/24&${window}&pagination_key=${first.body.pagination_key}`);
    expect(second.status).toBe(200);
    expect(second.body.events.map((e: V4Event) => e.event_id)).toEqual([target!.event_id]);
    expect(second.body.pagination_key).toBeUndefined();

    // A selective indexed filter is not limited by the events of others.
    const byVisitor = await call(t, 'GET', `/v4/events?visitor_id=vis-target&${window}`);
    expect(byVisitor.body.events.map((e: V4Event) => e.event_id)).toEqual([target!.event_id]);
    expect(byVisitor.body.pagination_key).toBeUndefined();
  });
});
