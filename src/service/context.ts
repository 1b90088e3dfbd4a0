/** Everything a request handler or job needs, created once per service process. */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Bootstrap } from './bootstrap.js';
import type { ResolvedConfig } from './config.js';
import type { RateLimiter } from './rate-limiter.js';
import type { ExpressionEvaluator } from './filtering/evaluator.js';
import type { Identifier } from './identification/identifier.js';
import type { ServiceMetrics } from './ops/metrics.js';
import type { Store } from './store/index.js';
import type { DeliveryHandOff } from './webhooks/outbox.js';

export interface ServiceContext {
  config: ResolvedConfig;
  /** The data-access layer: every SQL statement goes through it (store/index.ts). */
  store: Store;
  /** ms since epoch; every time-based decision uses it. */
  clock: () => number;
  rateLimiter: RateLimiter;
  logger: Logger;
  identifier: Identifier;
  /** Evaluates filtering-rule expressions (the minimal subset until the full evaluator lands). */
  ruleEvaluator: ExpressionEvaluator;
  /** The records created on the first start (default workspace, environment, keys). */
  bootstrap: Bootstrap;
  /** Encrypts encryption-key values at rest (master-key.ts); unset on PostgreSQL without TESSERA_MASTER_KEY. */
  masterKey: Uint8Array | undefined;
  /** Set when REDIS_URL is configured. */
  redis?: Redis;
  /** This instance's Prometheus metrics (ops/metrics.ts). */
  metrics: ServiceMetrics;
  /** Its webhook worker, which sends the deliveries queued here at once (webhooks/outbox.ts); set once the worker runs. */
  webhookHandOff?: DeliveryHandOff;
}
