/**
 * The CLI's options, once: each with its flag, environment variable, default and help text.
 * `--help` and the argument parser come from this list; test/docs/configuration-table.test.ts
 * checks the table of docs/configuration.md against it.
 */
import { DEFAULT_CONFIG, type ServiceConfig } from '../config.js';

export interface OptionSpec {
  flag: string;
  short?: string;
  env?: string;
  kind: 'string' | 'integer' | 'boolean';
  /** Shown in the help; `undefined` means "not set". */
  defaultText?: string;
  help: string;
  /** The ServiceConfig field it sets, for the service options. */
  config?: keyof ServiceConfig;
}

export const SERVICE_OPTIONS: OptionSpec[] = [
  { flag: 'port', short: 'p', env: 'TESSERA_PORT', kind: 'integer', defaultText: String(DEFAULT_CONFIG.port), help: 'HTTP port (0 picks a free port)', config: 'port' },
  { flag: 'host', env: 'TESSERA_HOST', kind: 'string', defaultText: DEFAULT_CONFIG.host, help: 'interface to listen on (0.0.0.0 for all)', config: 'host' },
  { flag: 'workers', env: 'TESSERA_WORKERS', kind: 'integer', help: 'start: service processes sharing the port and the database (node:cluster); 1 runs the service in this process alone; at most 4 per CPU core (default: the number of CPU cores)' },
  { flag: 'data-dir', env: 'TESSERA_DATA_DIR', kind: 'string', defaultText: DEFAULT_CONFIG.dataDir, help: 'directory of the embedded SQLite database', config: 'dataDir' },
  { flag: 'database-url', env: 'DATABASE_URL', kind: 'string', help: 'postgres://user:pass@host:5432/db: use PostgreSQL instead of SQLite (several instances may share it)', config: 'databaseUrl' },
  { flag: 'redis-url', env: 'REDIS_URL', kind: 'string', help: 'redis://host:6379: keep rate-limit counters in Redis, shared by all instances', config: 'redisUrl' },
  { flag: 'redis-key-prefix', env: 'TESSERA_REDIS_KEY_PREFIX', kind: 'string', defaultText: DEFAULT_CONFIG.redisKeyPrefix, help: 'prefix of every Redis key', config: 'redisKeyPrefix' },
  { flag: 'region', env: 'TESSERA_REGION', kind: 'string', defaultText: DEFAULT_CONFIG.region, help: "this service's region: us, eu or ap (workspaces of another region get wrong_region)", config: 'region' },
  { flag: 'retention-days', env: 'TESSERA_RETENTION_DAYS', kind: 'integer', defaultText: String(DEFAULT_CONFIG.retentionDays), help: 'events older than this are purged', config: 'retentionDays' },
  { flag: 'log-level', env: 'TESSERA_LOG_LEVEL', kind: 'string', defaultText: DEFAULT_CONFIG.logLevel, help: 'fatal, error, warn, info, debug, trace or silent', config: 'logLevel' },
  { flag: 'trust-proxy', env: 'TESSERA_TRUST_PROXY', kind: 'boolean', defaultText: 'false', help: 'behind a reverse proxy: take client IP, protocol and host from X-Forwarded-* headers', config: 'trustProxy' },
  { flag: 'visitor-cookie', env: 'TESSERA_VISITOR_COOKIE', kind: 'boolean', defaultText: 'false', help: 'also keep the visitor token in an HttpOnly cookie (for an agent posting to the page\'s own origin through a proxy: it outlives Safari\'s 7-day limit on script storage)', config: 'visitorCookie' },
  { flag: 'public-url', env: 'TESSERA_PUBLIC_URL', kind: 'string', help: 'URL pages reach the service at, an origin or an origin and a proxied path (baked into the CDN agent); default: the origin of each request', config: 'publicUrl' },
  { flag: 'master-key', env: 'TESSERA_MASTER_KEY', kind: 'string', defaultText: '<data dir>/master.key', help: 'base64 of 32 bytes that encrypts encryption keys at rest (openssl rand -base64 32); required with PostgreSQL, the same on every instance', config: 'masterKey' },
  { flag: 'webhook-allow-private-targets', env: 'TESSERA_WEBHOOK_ALLOW_PRIVATE_TARGETS', kind: 'boolean', defaultText: 'false', help: 'let webhooks reach loopback, private and link-local addresses (off: SSRF protection)', config: 'allowPrivateWebhookTargets' },
  { flag: 'webhook-ca-file', env: 'TESSERA_WEBHOOK_CA_FILE', kind: 'string', help: 'PEM file of extra CA certificates trusted for webhook receivers', config: 'webhookCaFile' },
  { flag: 'webhook-retention-days', env: 'TESSERA_WEBHOOK_RETENTION_DAYS', kind: 'integer', defaultText: String(DEFAULT_CONFIG.webhookRetentionDays), help: 'delivered and failed webhook deliveries (and their attempts) are deleted this many days after their last attempt', config: 'webhookRetentionDays' },
  { flag: 'request-timeout-ms', env: 'TESSERA_REQUEST_TIMEOUT_MS', kind: 'integer', defaultText: String(DEFAULT_CONFIG.requestTimeoutMs), help: 'a request (headers and body) must arrive within this many milliseconds', config: 'requestTimeoutMs' },
  { flag: 'max-connections', env: 'TESSERA_MAX_CONNECTIONS', kind: 'integer', defaultText: String(DEFAULT_CONFIG.maxConnections), help: 'open connections at most (per worker); more are refused', config: 'maxConnections' },
  { flag: 'ops-port', env: 'TESSERA_OPS_PORT', kind: 'integer', help: 'serve /health, /ready and /metrics on this separate port (default: /metrics only to loopback clients of the main port)', config: 'opsPort' },
  { flag: 'ops-host', env: 'TESSERA_OPS_HOST', kind: 'string', defaultText: DEFAULT_CONFIG.opsHost, help: 'interface of the ops listener', config: 'opsHost' },
  { flag: 'demo', env: 'TESSERA_DEMO', kind: 'boolean', help: 'serve the demo page at / and its /demo/events route, which lists recent events without a key (default: only when --host is loopback)', config: 'demo' },
  { flag: 'no-demo', env: 'TESSERA_NO_DEMO', kind: 'boolean', defaultText: 'false', help: 'do not serve the demo page at / (and its /demo/events route), whatever --host is' },
];

export const KEY_OPTIONS: OptionSpec[] = [
  { flag: 'type', kind: 'string', help: 'keys create/list: public, secret, proxy or management' },
  { flag: 'name', kind: 'string', help: 'keys create: a name (3 to 255 characters)' },
  { flag: 'description', kind: 'string', help: 'keys create: an optional description' },
  { flag: 'environment', kind: 'string', help: 'keys create: environment ID (default: the default environment for public keys)' },
  { flag: 'rate-limit', kind: 'integer', help: 'keys create: requests per second (default: by type)' },
  { flag: 'permissions', kind: 'string', help: 'keys create --type management: comma-separated permissions (default: all)' },
  { flag: 'visitor-deletion-enabled', kind: 'string', help: 'settings set: true or false: allow visitor deletion through the Server API' },
  { flag: 'data-retention-days', kind: 'integer', help: "settings set: keep events this many days (overrides --retention-days)" },
];

export const GENERAL_OPTIONS: OptionSpec[] = [
  { flag: 'json', kind: 'boolean', help: 'machine-readable JSON output' },
  { flag: 'help', short: 'h', kind: 'boolean', help: 'show this help' },
  { flag: 'version', short: 'v', kind: 'boolean', help: 'print the version' },
];

export const ALL_OPTIONS = [...SERVICE_OPTIONS, ...KEY_OPTIONS, ...GENERAL_OPTIONS];

const TRUE_WORDS = ['1', 'true', 'yes', 'on'];
const FALSE_WORDS = ['0', 'false', 'no', 'off', ''];

/** A flag's value from the command line or, failing that, its environment variable. */
export function optionValue(
  spec: OptionSpec,
  values: Record<string, string | boolean | undefined>,
  env: NodeJS.ProcessEnv,
): string | number | boolean | undefined {
  const raw = values[spec.flag] ?? (spec.env ? env[spec.env] : undefined);
  if (raw === undefined) return undefined;
  const source = values[spec.flag] !== undefined ? `--${spec.flag}` : spec.env!;
  if (spec.kind === 'boolean') {
    if (typeof raw === 'boolean') return raw;
    const word = raw.trim().toLowerCase();
    if (TRUE_WORDS.includes(word)) return true;
    if (FALSE_WORDS.includes(word)) return false;
    throw new Error(`${source} must be true or false (got "${raw}")`);
  }
  if (spec.kind === 'integer') {
    const text = String(raw).trim();
    if (!/^\d+$/.test(text)) throw new Error(`${source} must be a non-negative integer (got "${raw}")`);
    return Number(text);
  }
  return String(raw);
}

/** The ServiceConfig the flags and environment describe (unset options keep the defaults). */
export function serviceConfigFrom(values: Record<string, string | boolean | undefined>, env: NodeJS.ProcessEnv): ServiceConfig {
  const config: Record<string, unknown> = {};
  for (const spec of SERVICE_OPTIONS) {
    const value = optionValue(spec, values, env);
    if (value === undefined) continue;
    if (spec.config) config[spec.config] = value;
    if (spec.flag === 'no-demo') {
      if (value && config.demo === true) throw new Error('--demo and --no-demo (or TESSERA_DEMO and TESSERA_NO_DEMO) contradict each other');
      if (value) config.demo = false;
    }
  }
  return config;
}
