/** The service's configuration and its defaults. */
import type { DestinationStream } from 'pino';
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
  /** Serve the demo page at `/` and its small JSON route; default true. */
  demo?: boolean;
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

type Unset = 'databaseUrl' | 'redisUrl' | 'publicUrl' | 'opsPort' | 'logDestination';
export type ResolvedConfig = Required<Omit<ServiceConfig, Unset>> & Pick<ServiceConfig, Unset>;

export const DEFAULT_CONFIG = {
  port: 8080,
  host: '127.0.0.1',
  dataDir: './.tessera-data',
  redisKeyPrefix: 'tessera:',
  region: 'us',
  retentionDays: 90,
  logLevel: 'info',
  trustProxy: false,
  demo: true,
  requestTimeoutMs: 30_000,
  maxConnections: 10_000,
  opsHost: '127.0.0.1',
} as const satisfies Partial<ServiceConfig>;

export function resolveConfig(config: ServiceConfig = {}): ResolvedConfig {
  const defined = Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined)) as ServiceConfig;
  const resolved: ResolvedConfig = { ...DEFAULT_CONFIG, clock: Date.now, ...defined };
  if (!['us', 'eu', 'ap'].includes(resolved.region)) throw new Error(`region must be us, eu or ap (got "${resolved.region}")`);
  if (!Number.isInteger(resolved.port) || resolved.port < 0 || resolved.port > 65535) throw new Error(`port must be 0-65535 (got ${resolved.port})`);
  if (resolved.opsPort !== undefined && (!Number.isInteger(resolved.opsPort) || resolved.opsPort < 0 || resolved.opsPort > 65535)) {
    throw new Error(`ops port must be 0-65535 (got ${resolved.opsPort})`);
  }
  if (!(resolved.requestTimeoutMs > 0)) throw new Error(`request timeout must be positive (got ${resolved.requestTimeoutMs})`);
  if (!(resolved.maxConnections > 0)) throw new Error(`max connections must be positive (got ${resolved.maxConnections})`);
  if (!(resolved.retentionDays > 0)) throw new Error(`retention days must be positive (got ${resolved.retentionDays})`);
  if (resolved.publicUrl) resolved.publicUrl = new URL(resolved.publicUrl).origin;
  return resolved;
}
