/** The service's configuration and its defaults. */
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
   * Base64 of 32 bytes: encrypts encryption-key values at rest. Required with PostgreSQL to use
   * encryption keys; with SQLite the default is `master.key` in the data directory (master-key.ts).
   */
  masterKey?: string;
  /** Serve the demo page at `/` and its small JSON route; default true. */
  demo?: boolean;
}

export type ResolvedConfig = Required<Omit<ServiceConfig, 'databaseUrl' | 'redisUrl' | 'publicUrl' | 'masterKey'>> &
  Pick<ServiceConfig, 'databaseUrl' | 'redisUrl' | 'publicUrl' | 'masterKey'>;

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
} as const satisfies Partial<ServiceConfig>;

export function resolveConfig(config: ServiceConfig = {}): ResolvedConfig {
  const defined = Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined)) as ServiceConfig;
  const resolved: ResolvedConfig = { ...DEFAULT_CONFIG, clock: Date.now, ...defined };
  if (!['us', 'eu', 'ap'].includes(resolved.region)) throw new Error(`region must be us, eu or ap (got "${resolved.region}")`);
  if (!Number.isInteger(resolved.port) || resolved.port < 0 || resolved.port > 65535) throw new Error(`port must be 0-65535 (got ${resolved.port})`);
  if (!(resolved.retentionDays > 0)) throw new Error(`retention days must be positive (got ${resolved.retentionDays})`);
  if (resolved.publicUrl) resolved.publicUrl = new URL(resolved.publicUrl).origin;
  return resolved;
}
