/** The service's configuration and its defaults. */
import type { DestinationStream } from 'pino';
import ipaddr from 'ipaddr.js';
import type { Region } from './store/workspaces.js';

export interface ServiceConfig {
  /** Default 8080 (0 = a random free port, used by tests). */
  port?: number;
  /** Default '127.0.0.1'. */
  host?: string;
  /** SQLite file lives here; default './.tessera-data'. */
  dataDir?: string;
  /** 'postgres://...' selects PostgreSQL instead of SQLite. */
  databaseUrl?: string;
  /** Shared rate-limit counters in Redis instead of memory. */
  redisUrl?: string;
  /** Default 'tessera:'. */
  redisKeyPrefix?: string;
  /** This service's region; default 'us'. Workspaces of another region get `wrong_region`. */
  region?: Region;
  /** Default 90. */
  retentionDays?: number;
  /** pino level; default 'info'. */
  logLevel?: string;
  /** ms since epoch; default Date.now. Everything time-based uses it. */
  clock?: () => number;
  /** Take the client IP (and protocol/host) from X-Forwarded-* headers. */
  trustProxy?: boolean;
  /**
   * Also keep the visitor token in an HttpOnly cookie set by the service (ingestion/visitor-cookie.ts),
   * read when a visit's body has none; default false. For an agent that posts to the page's own
   * origin (a proxied path): such a cookie outlives WebKit's seven-day limit on script storage.
   */
  visitorCookie?: boolean;
  /**
   * The URL pages reach the service at, baked into CDN builds as their endpoint: an origin, or an
   * origin and the path a site proxies to the service (`https://shop.example/tessera`); default:
   * the origin of each request.
   */
  publicUrl?: string;
  /**
   * Base64 of 32 bytes: encrypts encryption-key values at rest. Required with PostgreSQL to use
   * encryption keys; with SQLite the default is `master.key` in the data directory (master-key.ts).
   */
  masterKey?: string;
  /**
   * Serve the demo page at `/` and its small JSON route (recent events of a visitor, without a
   * key); default: only when `host` is a loopback address (127.0.0.0/8, ::1, localhost).
   */
  demo?: boolean;
  /**
   * Let webhooks reach loopback, private, link-local and other non-public addresses; default
   * false (SSRF protection, webhooks/address-policy.ts). For receivers on your own network.
   */
  allowPrivateWebhookTargets?: boolean;
  /** PEM file of extra CA certificates webhook receivers may present (self-hosted receivers). */
  webhookCaFile?: string;
  /**
   * Days a settled (delivered or failed) webhook delivery and its attempts are kept after its
   * last attempt; default 7. Every delivery also goes with its event (retention, visitor
   * deletion), so none is kept longer than the data retention period.
   */
  webhookRetentionDays?: number;
  /** Webhook worker timing; the defaults suit production, tests shorten them. */
  webhookTiming?: Partial<WebhookTiming>;
  /**
   * Longest a request may take to arrive (headers and body); default 30000. A client
   * trickling its body is cut after it.
   */
  requestTimeoutMs?: number;
  /** Open connections at most; more are refused. Default 10000. */
  maxConnections?: number;
  /** A separate listener for /health, /ready and /metrics (0 = a random free port); default: none. */
  opsPort?: number;
  /** Interface of the ops listener; default '127.0.0.1'. */
  opsHost?: string;
  /** Where logs go; default standard output. For embedding and tests. */
  logDestination?: DestinationStream;
}

export interface WebhookTiming {
  /** Upper bound of the first retry's delay (full jitter, doubling per failure). Default 1000. */
  backoffBaseMs: number;
  /** Upper bound of any retry delay. Default 1 hour. */
  backoffCapMs: number;
  /** How long a claimed delivery is reserved for its worker; a killed worker's deliveries wait this long. Default 30 s. */
  leaseMs: number;
  /** How often an idle worker looks for due deliveries. Default 200 ms. */
  pollMs: number;
  /** Sends a process starts as soon as their event is stored, in flight at most; beyond, deliveries wait for a claim. Default 500. */
  handOffLimit: number;
}

type OptionalSettings = 'databaseUrl' | 'redisUrl' | 'publicUrl' | 'masterKey' | 'webhookCaFile' | 'opsPort' | 'logDestination';

export type ResolvedConfig = Required<Omit<ServiceConfig, OptionalSettings | 'webhookTiming'>> &
  Pick<ServiceConfig, OptionalSettings> & { webhookTiming: WebhookTiming };

export const DEFAULT_CONFIG = {
  port: 8080,
  host: '127.0.0.1',
  dataDir: './.tessera-data',
  redisKeyPrefix: 'tessera:',
  region: 'us',
  retentionDays: 90,
  webhookRetentionDays: 7,
  logLevel: 'info',
  trustProxy: false,
  visitorCookie: false,
  allowPrivateWebhookTargets: false,
  requestTimeoutMs: 30_000,
  maxConnections: 10_000,
  opsHost: '127.0.0.1',
} as const satisfies Partial<ServiceConfig>;

export function resolveConfig(config: ServiceConfig = {}): ResolvedConfig {
  const defined = Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined)) as ServiceConfig;
  const resolved: ResolvedConfig = {
    ...DEFAULT_CONFIG,
    clock: Date.now,
    demo: false,
    ...defined,
    webhookTiming: { backoffBaseMs: 1000, backoffCapMs: 60 * 60 * 1000, leaseMs: 30_000, pollMs: 200, handOffLimit: 500, ...defined.webhookTiming },
  };
  if (defined.demo === undefined) resolved.demo = isLoopbackHost(resolved.host);
  if (!['us', 'eu', 'ap'].includes(resolved.region)) throw new Error(`region must be us, eu or ap (got "${resolved.region}")`);
  if (!Number.isInteger(resolved.port) || resolved.port < 0 || resolved.port > 65535) throw new Error(`port must be 0-65535 (got ${resolved.port})`);
  if (resolved.opsPort !== undefined && (!Number.isInteger(resolved.opsPort) || resolved.opsPort < 0 || resolved.opsPort > 65535)) {
    throw new Error(`ops port must be 0-65535 (got ${resolved.opsPort})`);
  }
  if (!(resolved.requestTimeoutMs > 0)) throw new Error(`request timeout must be positive (got ${resolved.requestTimeoutMs})`);
  if (!(resolved.maxConnections > 0)) throw new Error(`max connections must be positive (got ${resolved.maxConnections})`);
  if (!(resolved.retentionDays > 0)) throw new Error(`retention days must be positive (got ${resolved.retentionDays})`);
  if (!(resolved.webhookRetentionDays > 0)) throw new Error(`webhook retention days must be positive (got ${resolved.webhookRetentionDays})`);
  if (resolved.publicUrl) resolved.publicUrl = publicBaseUrl(resolved.publicUrl);
  return resolved;
}

/** `value` as the service's public URL: an http(s) origin and path, without a trailing slash. */
export function publicBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`public URL must be an absolute http or https URL (got "${value}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`public URL must be http or https (got "${value}")`);
  // Not echoed: it would print the password.
  if (url.username || url.password) throw new Error('public URL must not carry credentials');
  if (url.search || url.hash) throw new Error(`public URL must be an origin and a path, without a query or fragment (got "${value}")`);
  return url.origin + url.pathname.replace(/\/+$/, '');
}

/** 127.0.0.0/8, ::1 (also IPv4-mapped) and localhost: only this machine can connect. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost') return true;
  return (ipaddr.IPv4.isValidFourPartDecimal(h) || ipaddr.IPv6.isValid(h)) && ipaddr.process(h).range() === 'loopback';
}
