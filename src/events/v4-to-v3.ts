/**
 * The v4 -> v3 field mapping of the interface contract (shared/spec/interface.md, outside this
 * repository, "Field mapping"), as pure functions. Tessera stores only v4 events; the legacy
 * Server API and legacy webhooks derive their payloads here.
 */
import type { IpInfoEntry, V4Event, Window3 } from './v4-event.js';
import type {
  V3BotResult,
  V3Event,
  V3Geolocation,
  V3IdentificationData,
  V3IpInfoEntry,
  V3Products,
  V3SeenAt,
  V3VelocityWindows,
  V3Visit,
  V3WebhookVisit,
} from './v3-event.js';

const iso = (ms: number): string => new Date(ms).toISOString();

/** `snake_case` -> `camelCase` for one key. */
export function camelKey(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** Renames the keys of nested plain objects (arrays included) to camelCase. */
export function camelKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelKeysDeep);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [camelKey(k), camelKeysDeep(v)]),
    );
  }
  return value;
}

function seenAt(ms: number | undefined): V3SeenAt {
  // Tessera has one workspace scope, so global and subscription views coincide.
  const at = ms === undefined ? null : iso(ms);
  return { global: at, subscription: at };
}

/** v3 `url`: the page URL in browsers, the bundle id on iOS, the package name on Android. */
function v3Url(e: V4Event): string {
  return e.url ?? e.bundle_id ?? e.package_name ?? '';
}

function ipLocation(e: V4Event): V3Geolocation | undefined {
  const geo = e.ip_info?.v4?.geolocation ?? e.ip_info?.v6?.geolocation;
  return geo === undefined ? undefined : (camelKeysDeep(geo) as V3Geolocation);
}

/** A record of `visits` of the legacy visitor lookup. */
export function toV3Visit(e: V4Event): V3Visit {
  const b = e.browser_details;
  const id = e.identification;
  const visit: V3Visit = {
    requestId: e.event_id,
    browserDetails: {
      browserName: b?.browser_name ?? '',
      browserMajorVersion: b?.browser_major_version ?? '',
      browserFullVersion: b?.browser_full_version ?? '',
      os: b?.os ?? e.os ?? '',
      osVersion: b?.os_version ?? e.os_version ?? '',
      device: b?.device ?? e.device ?? '',
      userAgent: e.user_agent ?? '',
    },
    incognito: e.incognito ?? false,
    ip: e.ip_address ?? '',
    timestamp: e.timestamp,
    time: iso(e.timestamp),
    url: v3Url(e),
    tag: e.tags ?? {},
    confidence: {
      score: id?.confidence.score ?? 0,
      revision: id?.confidence.version ?? '',
      ...(id?.confidence.comment !== undefined ? { comment: id.confidence.comment } : {}),
    },
    visitorFound: id?.visitor_found ?? false,
    firstSeenAt: seenAt(id?.first_seen_at),
    lastSeenAt: seenAt(id?.last_seen_at),
  };
  const location = ipLocation(e);
  if (location !== undefined) visit.ipLocation = location;
  if (e.linked_id !== undefined) visit.linkedId = e.linked_id;
  return visit;
}

/** `products.identification.data`: the visit plus the visitor and event-level fields. */
export function toV3IdentificationData(e: V4Event): V3IdentificationData {
  const data: V3IdentificationData = {
    visitorId: e.identification?.visitor_id ?? '',
    ...toV3Visit(e),
  };
  if (e.environment_id !== undefined) data.environmentId = e.environment_id;
  if (e.suspect !== undefined) data.suspect = e.suspect;
  if (e.replayed !== undefined) data.replayed = e.replayed;
  if (e.sdk !== undefined) data.sdk = e.sdk;
  return data;
}

const BOT_RESULT: Record<NonNullable<V4Event['bot']>, V3BotResult> = {
  bad: 'bad',
  good: 'good',
  not_detected: 'notDetected',
};

function ipInfoEntry(entry: IpInfoEntry): V3IpInfoEntry {
  const out: V3IpInfoEntry = { address: entry.address };
  if (entry.geolocation !== undefined) {
    out.geolocation = camelKeysDeep(entry.geolocation) as V3Geolocation;
  }
  if (entry.asn !== undefined) {
    out.asn = { asn: entry.asn };
    if (entry.asn_name !== undefined) out.asn.name = entry.asn_name;
    if (entry.asn_network !== undefined) out.asn.network = entry.asn_network;
  }
  if (entry.datacenter_result !== undefined) {
    out.datacenter = { result: entry.datacenter_result };
    if (entry.datacenter_name !== undefined) out.datacenter.name = entry.datacenter_name;
  }
  return out;
}

function velocityWindows(w: Window3): V3VelocityWindows {
  return { intervals: { '5m': w['5_minutes'], '1h': w['1_hour'], '24h': w['24_hours'] } };
}

/** Copies `value` under `key` only when it is defined (v3 omits products not collected). */
function put<K extends keyof V3Products>(
  products: V3Products,
  key: K,
  value: V3Products[K] | undefined,
): void {
  if (value !== undefined) products[key] = value;
}

const result = <T>(value: T | undefined): { data: { result: T } } | undefined =>
  value === undefined ? undefined : { data: { result: value } };

/** Drops keys whose value is undefined, so optional v3 fields are absent rather than undefined. */
function defined<T extends object>(obj: T): T {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as T;
}

/** The nested `products` object of the v3 event (`GET /events/:request_id`). */
export function toV3Products(e: V4Event): V3Products {
  const p: V3Products = {};
  if (e.identification !== undefined) p.identification = { data: toV3IdentificationData(e) };
  if (e.bot !== undefined) {
    p.botd = {
      data: defined({
        bot: defined({
          result: BOT_RESULT[e.bot],
          type: e.bot_type,
          info: e.bot_info === undefined ? undefined : { ...e.bot_info },
        }),
        url: v3Url(e),
        ip: e.ip_address ?? '',
        time: iso(e.timestamp),
        userAgent: e.user_agent ?? '',
        requestId: e.event_id,
        linkedId: e.linked_id,
      }),
    };
  }
  if (e.ip_info !== undefined) {
    p.ipInfo = {
      data: defined({
        v4: e.ip_info.v4 === undefined ? undefined : ipInfoEntry(e.ip_info.v4),
        v6: e.ip_info.v6 === undefined ? undefined : ipInfoEntry(e.ip_info.v6),
      }),
    };
  }
  put(p, 'incognito', result(e.incognito));
  put(p, 'rootApps', result(e.root_apps));
  put(p, 'emulator', result(e.emulator));
  put(p, 'clonedApp', result(e.cloned_app));
  if (e.factory_reset_timestamp !== undefined) {
    p.factoryReset = {
      // v3 carried the reset both as ISO time and as Unix seconds.
      data: { time: iso(e.factory_reset_timestamp), timestamp: Math.floor(e.factory_reset_timestamp / 1000) },
    };
  }
  put(p, 'jailbroken', result(e.jailbroken));
  put(p, 'frida', result(e.frida));
  if (e.ip_blocklist !== undefined) {
    const { email_spam, attack_source, tor_node } = e.ip_blocklist;
    p.ipBlocklist = {
      data: {
        result: email_spam || attack_source,
        details: { emailSpam: email_spam, attackSource: attack_source },
      },
    };
    p.tor = { data: { result: tor_node } };
  }
  put(p, 'privacySettings', result(e.privacy_settings));
  if (e.virtual_machine !== undefined) {
    p.virtualMachine = {
      data: defined({ result: e.virtual_machine, mlScore: e.virtual_machine_ml_score }),
    };
  }
  if (e.vpn !== undefined) {
    const m = e.vpn_methods;
    p.vpn = {
      data: defined({
        result: e.vpn,
        confidence: e.vpn_confidence,
        originTimezone: e.vpn_origin_timezone,
        originCountry: e.vpn_origin_country,
        methods:
          m === undefined
            ? undefined
            : {
                timezoneMismatch: m.timezone_mismatch,
                publicVPN: m.public_vpn,
                auxiliaryMobile: m.auxiliary_mobile,
                osMismatch: m.os_mismatch,
                relay: m.relay,
              },
      }),
    };
  }
  if (e.proxy !== undefined) {
    const d = e.proxy_details;
    p.proxy = {
      data: defined({
        result: e.proxy,
        confidence: e.proxy_confidence,
        details:
          d === undefined
            ? undefined
            : defined({ proxyType: d.proxy_type, lastSeenAt: d.last_seen_at }),
        mlScore: e.proxy_ml_score,
      }),
    };
  }
  if (e.tampering !== undefined) {
    const d = e.tampering_details;
    p.tampering = {
      data: defined({
        result: e.tampering,
        confidence: e.tampering_confidence,
        mlScore: e.tampering_ml_score,
        details:
          d === undefined
            ? undefined
            : { anomalyScore: d.anomaly_score, antiDetectBrowser: d.anti_detect_browser },
        anomalyScore: d?.anomaly_score,
        antiDetectBrowser: d?.anti_detect_browser,
      }),
    };
  }
  put(p, 'highActivity', result(e.high_activity_device));
  put(p, 'locationSpoofing', result(e.location_spoofing));
  put(p, 'suspectScore', result(e.suspect_score));
  if (e.velocity !== undefined) {
    p.velocity = {
      data: Object.fromEntries(
        (Object.entries(e.velocity) as [string, Window3][]).map(([k, w]) => [camelKey(k), velocityWindows(w)]),
      ),
    };
  }
  put(p, 'developerTools', result(e.developer_tools));
  put(p, 'mitmAttack', result(e.mitm_attack));
  if (e.rare_device !== undefined) {
    p.rareDevice = {
      data: defined({ result: e.rare_device, percentileBucket: e.rare_device_percentile_bucket }),
    };
  }
  if (e.proximity !== undefined) {
    p.proximity = {
      data: {
        id: e.proximity.id,
        precisionRadius: e.proximity.precision_radius,
        confidence: e.proximity.confidence,
      },
    };
  }
  if (e.raw_device_attributes !== undefined) {
    p.rawDeviceAttributes = { data: { ...e.raw_device_attributes } };
  }
  return p;
}

/** The v3 event of `GET /events/:request_id` and of `GET /events/search`. */
export function toV3Event(e: V4Event): V3Event {
  return { products: toV3Products(e) };
}

/** The flat body of a legacy (v3) webhook delivery. */
export function toV3WebhookVisit(e: V4Event): V3WebhookVisit {
  // `incognito` stays the plain boolean of the identification data, as legacy receivers read it.
  const { identification: _identification, botd, incognito: _incognito, ...others } =
    toV3Products(e);
  const flat: V3WebhookVisit = {
    ...toV3IdentificationData(e),
    userAgent: e.user_agent ?? '',
  };
  if (botd !== undefined) flat.bot = botd.data.bot;
  for (const [name, product] of Object.entries(others)) {
    flat[name] = (product as { data: unknown }).data;
  }
  return flat;
}
