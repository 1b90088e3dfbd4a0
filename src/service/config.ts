/** The service's configuration and its defaults. */
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
  /** Origin baked into CDN builds; default: derived from each request. */
  publicUrl?: string;
  /**
   * Serve the demo page at `/` and its small JSON route (recent events of a visitor, without a
   * key); default: only when `host` is a loopback address (127.0.0.0/8, ::1, localhost).
   */
  demo?: boolean;
}

export type ResolvedConfig = Required<Omit<ServiceConfig, 'databaseUrl' | 'redisUrl' | 'publicUrl'>> &
  Pick<ServiceConfig, 'databaseUrl' | 'redisUrl' | 'publicUrl'>;

export const DEFAULT_CONFIG = {
  port: 8080,
  host: '127.0.0.1',
  dataDir: './.tessera-data',
  redisKeyPrefix: 'tessera:',
  region: 'us',
  retentionDays: 90,
  logLevel: 'info',
  trustProxy: false,
} as const satisfies Partial<ServiceConfig>;

export function resolveConfig(config: ServiceConfig = {}): ResolvedConfig {
  const defined = Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined)) as ServiceConfig;
  const resolved: ResolvedConfig = { ...DEFAULT_CONFIG, clock: Date.now, demo: false, ...defined };
  if (defined.demo === undefined) resolved.demo = isLoopbackHost(resolved.host);
  if (!['us', 'eu', 'ap'].includes(resolved.region)) throw new Error(`region must be us, eu or ap (got "${resolved.region}")`);
  if (!Number.isInteger(resolved.port) || resolved.port < 0 || resolved.port > 65535) throw new Error(`port must be 0-65535 (got ${resolved.port})`);
  if (!(resolved.retentionDays > 0)) throw new Error(`retention days must be positive (got ${resolved.retentionDays})`);
  if (resolved.publicUrl) resolved.publicUrl = new URL(resolved.publicUrl).origin;
  return resolved;
}

/** 127.0.0.0/8, ::1 (also IPv4-mapped) and localhost: only this machine can connect. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost') return true;
  return (ipaddr.IPv4.isValidFourPartDecimal(h) || ipaddr.IPv6.isValid(h)) && ipaddr.process(h).range() === 'loopback';
}
