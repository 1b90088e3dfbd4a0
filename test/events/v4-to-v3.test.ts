import { describe, expect, it } from 'vitest';
import type { V4Event } from '../../src/events/v4-event.js';
import {
  toV3Event,
  toV3Products,
  toV3Visit,
  toV3WebhookVisit,
} from '../../src/events/v4-to-v3.js';

const T = 1708102555327;
const w = (a: number, b: number, c: number) => ({ '5_minutes': a, '1_hour': b, '24_hours': c });

/** A v4 event carrying every field of both mapping tables. */
function fullEvent(): V4Event {
  return {
    event_id: `${T}.NLOjmg`,
    timestamp: T,
    linked_id: 'order-42',
    environment_id: 'ae_main',
    suspect: true,
    replayed: false,
    tags: { plan: 'pro' },
    url: 'https://shop.example/checkout',
    client_referrer: 'https://ref.example/',
    ip_address: '203.0.113.7',
    user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/129.0.0.0',
    device: 'Other',
    os: 'Linux',
    os_version: '6.1',
    sdk: { platform: 'js', version: '1.2.3' },
    identification: {
      visitor_id: 'Vis1tor000000000',
      confidence: { score: 0.97, version: 'v1.1', comment: 'exact token' },
      visitor_found: true,
      first_seen_at: T - 86_400_000,
      last_seen_at: T - 3_600_000,
    },
    browser_details: {
      browser_name: 'Chrome',
      browser_major_version: '129',
      browser_full_version: '129.0.0.0',
      os: 'Linux',
      os_version: '6.1',
      device: 'Other',
    },
    bot: 'bad',
    bot_type: 'selenium',
    bot_info: { category: 'automation', provider: 'x', name: 'Selenium', identity: 'unknown', confidence: 'high' },
    incognito: true,
    developer_tools: true,
    privacy_settings: false,
    virtual_machine: true,
    virtual_machine_ml_score: 0.8,
    tampering: true,
    tampering_confidence: 'medium',
    tampering_ml_score: 0.6,
    tampering_details: { anomaly_score: 0.4, anti_detect_browser: true },
    vpn: true,
    vpn_confidence: 'high',
    vpn_origin_timezone: 'Europe/Berlin',
    vpn_origin_country: 'DE',
    vpn_methods: { timezone_mismatch: true, public_vpn: false, auxiliary_mobile: false, os_mismatch: true, relay: false },
    proxy: true,
    proxy_confidence: 'low',
    proxy_details: { proxy_type: 'residential', last_seen_at: T - 1000 },
    proxy_ml_score: 0.3,
    ip_blocklist: { email_spam: false, attack_source: true, tor_node: true },
    ip_info: {
      v4: {
        address: '203.0.113.7',
        geolocation: { accuracy_radius: 20, city: { name: 'Berlin' }, postal_code: '10115' },
        asn: '64500',
        asn_name: 'Example Net',
        asn_network: '203.0.113.0/24',
        datacenter_result: true,
        datacenter_name: 'DC1',
      },
      v6: { address: '2001:db8::1' },
    },
    suspect_score: 17,
    high_activity_device: true,
    rare_device: true,
    rare_device_percentile_bucket: 'p95',
    velocity: {
      distinct_ip: w(1, 2, 3),
      distinct_linked_id: w(4, 5, 6),
      distinct_country: w(1, 1, 1),
      events: w(7, 8, 9),
      ip_events: w(2, 2, 2),
      distinct_ip_by_linked_id: w(3, 3, 3),
      distinct_visitor_id_by_linked_id: w(1, 1, 2),
    },
    raw_device_attributes: { canvas: { value: 'abc' } },
    jailbroken: false,
    frida: true,
    root_apps: false,
    emulator: true,
    cloned_app: false,
    factory_reset_timestamp: 1_600_000_000_000,
    mitm_attack: true,
    location_spoofing: false,
    proximity: { id: 'prox1', precision_radius: 10, confidence: 0.9 },
  };
}

describe('core and identification mapping (v4 -> v3)', () => {
  const e = fullEvent();
  const visit = toV3Visit(e);
  const ident = toV3Products(e).identification!.data;

  it('requestId <- event_id, timestamp <- timestamp, time is the ISO form of it', () => {
    expect(visit.requestId).toBe(e.event_id);
    expect(visit.timestamp).toBe(T);
    expect(visit.time).toBe('2024-02-16T16:55:55.327Z');
  });
  it('tag <- tags, linkedId <- linked_id, sdk <- sdk, environmentId <- environment_id', () => {
    expect(visit.tag).toEqual({ plan: 'pro' });
    expect(visit.linkedId).toBe('order-42');
    expect(ident.sdk).toEqual({ platform: 'js', version: '1.2.3' });
    expect(ident.environmentId).toBe('ae_main');
  });
  it('visitorId, confidence {score, revision, comment}, visitorFound come from identification', () => {
    expect(ident.visitorId).toBe('Vis1tor000000000');
    expect(visit.confidence).toEqual({ score: 0.97, revision: 'v1.1', comment: 'exact token' });
    expect(visit.visitorFound).toBe(true);
  });
  it('firstSeenAt / lastSeenAt are ISO strings of the ms values', () => {
    expect(visit.firstSeenAt).toEqual({ global: '2024-02-15T16:55:55.327Z', subscription: '2024-02-15T16:55:55.327Z' });
    expect(visit.lastSeenAt.global).toBe('2024-02-16T15:55:55.327Z');
  });
  it('ip <- ip_address, ipLocation <- ip_info.v4.geolocation (camelCase)', () => {
    expect(visit.ip).toBe('203.0.113.7');
    expect(visit.ipLocation).toEqual({ accuracyRadius: 20, city: { name: 'Berlin' }, postalCode: '10115' });
  });
  it('ipLocation falls back to ip_info.v6.geolocation and is absent without geolocation', () => {
    const v6 = toV3Visit({ ...e, ip_info: { v6: { address: '::1', geolocation: { time_zone: 'UTC' } } } });
    expect(v6.ipLocation).toEqual({ timeZone: 'UTC' });
    expect('ipLocation' in toV3Visit({ event_id: 'x', timestamp: T })).toBe(false);
  });
  it('url <- url in browsers, bundle_id on iOS, package_name on Android', () => {
    expect(visit.url).toBe('https://shop.example/checkout');
    const { url: _u, ...noUrl } = e;
    expect(toV3Visit({ ...noUrl, bundle_id: 'com.example.ios' }).url).toBe('com.example.ios');
    expect(toV3Visit({ ...noUrl, package_name: 'com.example.android' }).url).toBe('com.example.android');
  });
  it('browserDetails: userAgent <- user_agent, the rest <- browser_details', () => {
    expect(visit.browserDetails).toEqual({
      browserName: 'Chrome',
      browserMajorVersion: '129',
      browserFullVersion: '129.0.0.0',
      os: 'Linux',
      osVersion: '6.1',
      device: 'Other',
      userAgent: e.user_agent,
    });
  });
  it('browserDetails device/os/osVersion fall back to the top-level v4 fields', () => {
    const { browser_details: _b, ...rest } = e;
    const v = toV3Visit({ ...rest, device: 'iPhone', os: 'iOS', os_version: '17.1' });
    expect(v.browserDetails).toMatchObject({ device: 'iPhone', os: 'iOS', osVersion: '17.1', browserName: '' });
  });
  it('incognito, suspect, replayed keep their names', () => {
    expect(visit.incognito).toBe(true);
    expect(ident.suspect).toBe(true);
    expect(ident.replayed).toBe(false);
  });
  it('a minimal v4 event gives v3 defaults (null / false / empty) where v4 omits fields', () => {
    const v = toV3Visit({ event_id: `${T}.aaaaaa`, timestamp: T });
    expect(v).toEqual({
      requestId: `${T}.aaaaaa`,
      browserDetails: { browserName: '', browserMajorVersion: '', browserFullVersion: '', os: '', osVersion: '', device: '', userAgent: '' },
      incognito: false,
      ip: '',
      timestamp: T,
      time: '2024-02-16T16:55:55.327Z',
      url: '',
      tag: {},
      confidence: { score: 0, revision: '' },
      visitorFound: false,
      firstSeenAt: { global: null, subscription: null },
      lastSeenAt: { global: null, subscription: null },
    });
    expect(toV3Products({ event_id: 'x', timestamp: T })).toEqual({});
  });
});

describe('signal mapping (v4 -> v3 products)', () => {
  const e = fullEvent();
  const p = toV3Products(e);

  it('botd.data.bot {result, type} <- bot, bot_type, bot_info', () => {
    expect(p.botd!.data.bot).toEqual({ result: 'bad', type: 'selenium', info: e.bot_info });
    expect(p.botd!.data).toMatchObject({ requestId: e.event_id, ip: e.ip_address, linkedId: 'order-42' });
    expect(toV3Products({ event_id: 'x', timestamp: T, bot: 'not_detected' }).botd!.data.bot).toEqual({ result: 'notDetected' });
  });
  it('vpn.data <- vpn, vpn_confidence, vpn_methods, vpn_origin_country, vpn_origin_timezone', () => {
    expect(p.vpn!.data).toEqual({
      result: true,
      confidence: 'high',
      originTimezone: 'Europe/Berlin',
      originCountry: 'DE',
      methods: { timezoneMismatch: true, publicVPN: false, auxiliaryMobile: false, osMismatch: true, relay: false },
    });
  });
  it('proxy.data <- proxy, proxy_confidence, proxy_details, proxy_ml_score', () => {
    expect(p.proxy!.data).toEqual({
      result: true,
      confidence: 'low',
      details: { proxyType: 'residential', lastSeenAt: T - 1000 },
      mlScore: 0.3,
    });
  });
  it('tampering.data <- tampering, tampering_confidence, tampering_details, tampering_ml_score', () => {
    expect(p.tampering!.data).toMatchObject({
      result: true,
      confidence: 'medium',
      mlScore: 0.6,
      details: { anomalyScore: 0.4, antiDetectBrowser: true },
    });
  });
  it('tor.data.result <- ip_blocklist.tor_node; ipBlocklist.data.details <- ip_blocklist', () => {
    expect(p.tor!.data.result).toBe(true);
    expect(p.ipBlocklist!.data).toEqual({ result: true, details: { emailSpam: false, attackSource: true } });
  });
  it('ipInfo.data <- ip_info (asn and datacenter nested again)', () => {
    expect(p.ipInfo!.data).toEqual({
      v4: {
        address: '203.0.113.7',
        geolocation: { accuracyRadius: 20, city: { name: 'Berlin' }, postalCode: '10115' },
        asn: { asn: '64500', name: 'Example Net', network: '203.0.113.0/24' },
        datacenter: { result: true, name: 'DC1' },
      },
      v6: { address: '2001:db8::1' },
    });
  });
  it('single-result products: incognito, jailbroken, frida, rootApps, emulator, clonedApp, privacySettings, mitmAttack, locationSpoofing, developerTools, highActivity, suspectScore', () => {
    expect(p.incognito!.data.result).toBe(true);
    expect(p.jailbroken!.data.result).toBe(false);
    expect(p.frida!.data.result).toBe(true);
    expect(p.rootApps!.data.result).toBe(false);
    expect(p.emulator!.data.result).toBe(true);
    expect(p.clonedApp!.data.result).toBe(false);
    expect(p.privacySettings!.data.result).toBe(false);
    expect(p.mitmAttack!.data.result).toBe(true);
    expect(p.locationSpoofing!.data.result).toBe(false);
    expect(p.developerTools!.data.result).toBe(true);
    expect(p.highActivity!.data.result).toBe(true);
    expect(p.suspectScore!.data.result).toBe(17);
  });
  it('factoryReset.data.time <- factory_reset_timestamp', () => {
    expect(p.factoryReset!.data).toEqual({ time: '2020-09-13T12:26:40.000Z', timestamp: 1_600_000_000 });
  });
  it('virtualMachine.data {result, mlScore} <- virtual_machine, virtual_machine_ml_score', () => {
    expect(p.virtualMachine!.data).toEqual({ result: true, mlScore: 0.8 });
  });
  it('rareDevice.data {result, percentileBucket} <- rare_device, rare_device_percentile_bucket', () => {
    expect(p.rareDevice!.data).toEqual({ result: true, percentileBucket: 'p95' });
  });
  it('velocity, proximity, rawDeviceAttributes data <- velocity, proximity, raw_device_attributes', () => {
    expect(p.velocity!.data.distinctIp).toEqual({ intervals: { '5m': 1, '1h': 2, '24h': 3 } });
    expect(p.velocity!.data.distinctVisitorIdByLinkedId).toEqual({ intervals: { '5m': 1, '1h': 1, '24h': 2 } });
    expect(Object.keys(p.velocity!.data)).toHaveLength(7);
    expect(p.proximity!.data).toEqual({ id: 'prox1', precisionRadius: 10, confidence: 0.9 });
    expect(p.rawDeviceAttributes!.data).toEqual({ canvas: { value: 'abc' } });
  });
  it('remoteControl is never produced; products whose signal is absent are omitted', () => {
    expect('remoteControl' in p).toBe(false);
    const only = toV3Products({ event_id: 'x', timestamp: T, vpn: false });
    expect(Object.keys(only)).toEqual(['vpn']);
    expect(only.vpn!.data).toEqual({ result: false });
  });
  it('toV3Event nests the products', () => {
    expect(toV3Event(e)).toEqual({ products: p });
  });
});

describe('legacy webhook visit (flat v3)', () => {
  const e = fullEvent();
  const hook = toV3WebhookVisit(e);

  it('carries the identification data flat at the top level', () => {
    expect(hook).toMatchObject({
      requestId: e.event_id,
      visitorId: 'Vis1tor000000000',
      url: e.url,
      ip: e.ip_address,
      tag: { plan: 'pro' },
      linkedId: 'order-42',
      time: '2024-02-16T16:55:55.327Z',
      timestamp: T,
      confidence: { score: 0.97, revision: 'v1.1', comment: 'exact token' },
      visitorFound: true,
      incognito: true,
      userAgent: e.user_agent,
      environmentId: 'ae_main',
    });
    expect(hook.firstSeenAt.global).toBe('2024-02-15T16:55:55.327Z');
    expect(hook.browserDetails.browserName).toBe('Chrome');
  });
  it('puts each product data under its name, botd as `bot`', () => {
    expect(hook.bot).toEqual({ result: 'bad', type: 'selenium', info: e.bot_info });
    expect(hook['vpn']).toEqual(toV3Products(e).vpn!.data);
    expect(hook['tor']).toEqual({ result: true });
    expect(hook['suspectScore']).toEqual({ result: 17 });
    expect('identification' in hook).toBe(false);
    expect('botd' in hook).toBe(false);
  });
});
