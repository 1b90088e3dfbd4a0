/**
 * The legacy (Server API v3) shapes: camelCase, nested per product, `null`/`false` where v4
 * omits a value. They are produced from the v4 event by `./v4-to-v3.ts`, never stored.
 */
import type { TagValue } from '../protocol/index.js';

/** ISO-8601 time, or null when unknown. */
export type IsoOrNull = string | null;

export interface V3BrowserDetails {
  browserName: string;
  browserMajorVersion: string;
  browserFullVersion: string;
  os: string;
  osVersion: string;
  device: string;
  userAgent: string;
}

export interface V3Confidence {
  score: number;
  revision: string;
  comment?: string;
}

export interface V3SeenAt {
  global: IsoOrNull;
  subscription: IsoOrNull;
}

export type V3Geolocation = Record<string, unknown>;

/** One record of `visits` of `GET /visitors/:visitor_id`. */
export interface V3Visit {
  requestId: string;
  browserDetails: V3BrowserDetails;
  incognito: boolean;
  ip: string;
  ipLocation?: V3Geolocation;
  linkedId?: string;
  /** Unix ms. */
  timestamp: number;
  /** ISO-8601 of `timestamp`. */
  time: string;
  url: string;
  tag: TagValue;
  confidence: V3Confidence;
  visitorFound: boolean;
  firstSeenAt: V3SeenAt;
  lastSeenAt: V3SeenAt;
}

/** `products.identification.data` of the v3 event. */
export interface V3IdentificationData extends V3Visit {
  visitorId: string;
  environmentId?: string;
  suspect?: boolean;
  replayed?: boolean;
  sdk?: { platform: string; version: string; integrations?: { name: string; version: string }[] };
}

export type V3BotResult = 'notDetected' | 'good' | 'bad';

export interface V3BotdData {
  bot: { result: V3BotResult; type?: string; info?: Record<string, unknown> };
  url: string;
  ip: string;
  time: string;
  userAgent: string;
  requestId: string;
  linkedId?: string;
}

export interface V3Result<T = boolean> {
  result: T;
}

export interface V3IpInfoEntry {
  address: string;
  geolocation?: V3Geolocation;
  asn?: { asn: string; name?: string; network?: string };
  datacenter?: { result: boolean; name?: string };
}

export type V3VelocityWindows = { intervals: { '5m': number; '1h': number; '24h': number } };

/** The nested v3 event of `GET /events/:request_id`: one `{ data }` per product collected. */
export interface V3Products {
  identification?: { data: V3IdentificationData };
  botd?: { data: V3BotdData };
  ipInfo?: { data: { v4?: V3IpInfoEntry; v6?: V3IpInfoEntry } };
  incognito?: { data: V3Result };
  rootApps?: { data: V3Result };
  emulator?: { data: V3Result };
  clonedApp?: { data: V3Result };
  factoryReset?: { data: { time: string; timestamp: number } };
  jailbroken?: { data: V3Result };
  frida?: { data: V3Result };
  ipBlocklist?: { data: V3Result & { details: { emailSpam: boolean; attackSource: boolean } } };
  tor?: { data: V3Result };
  privacySettings?: { data: V3Result };
  virtualMachine?: { data: V3Result & { mlScore?: number } };
  vpn?: {
    data: V3Result & {
      confidence?: string;
      originTimezone?: string;
      originCountry?: string;
      methods?: {
        timezoneMismatch: boolean;
        publicVPN: boolean;
        auxiliaryMobile: boolean;
        osMismatch: boolean;
        relay: boolean;
      };
    };
  };
  proxy?: {
    data: V3Result & {
      confidence?: string;
      details?: { proxyType: string; lastSeenAt?: number };
      mlScore?: number;
    };
  };
  tampering?: {
    data: V3Result & {
      confidence?: string;
      mlScore?: number;
      details?: { anomalyScore: number; antiDetectBrowser: boolean };
      /** Also flat, as older v3 readers expect. */
      anomalyScore?: number;
      antiDetectBrowser?: boolean;
    };
  };
  highActivity?: { data: V3Result };
  locationSpoofing?: { data: V3Result };
  suspectScore?: { data: V3Result<number> };
  velocity?: { data: Record<string, V3VelocityWindows> };
  developerTools?: { data: V3Result };
  mitmAttack?: { data: V3Result };
  rareDevice?: { data: V3Result & { percentileBucket?: string } };
  proximity?: { data: { id: string; precisionRadius: number; confidence: number } };
  rawDeviceAttributes?: { data: Record<string, unknown> };
}

export interface V3Event {
  products: V3Products;
}

/**
 * The flat legacy webhook body: the identification data at the top level, then each other
 * product's `data` under the product's name (`bot` for botd).
 */
export type V3WebhookVisit = V3IdentificationData & {
  userAgent: string;
  bot?: V3BotdData['bot'];
} & { [product: string]: unknown };
