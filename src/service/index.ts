/**
 * `createService(config)`: the Tessera identification service as a library. The CLI
 * (`tessera start`) is a thin layer over it.
 */
import type { FastifyInstance } from 'fastify';
import type * as IORedis from 'ioredis';
import type { Redis } from 'ioredis';
import { buildApp } from './app.js';
import { type Bootstrap, ensureBootstrap, visitorTokenSecret } from './bootstrap.js';
import { resolveConfig, type ServiceConfig } from './config.js';
import type { ServiceContext } from './context.js';
import { createExpressionEvaluator } from './filtering/expr/index.js';
import { createIdentifier } from './identification/identifier.js';
import { startBackgroundJobs, type BackgroundJobs } from './jobs/index.js';
import { createLogger } from './logger.js';
import { importOptional } from './optional-dependency.js';
import { createRateLimiter } from './rate-limiter.js';
import { redactUrl } from './store/database.js';
import { openStore } from './store/index.js';

export type { ServiceConfig } from './config.js';
export type { ServiceContext } from './context.js';
export type { Bootstrap } from './bootstrap.js';

export interface Service {
  app: FastifyInstance;
  ctx: ServiceContext;
  /** Created on the first start, read back on later starts. */
  bootstrap: Bootstrap;
  /** True when this start created the bootstrap records (a fresh database). */
  firstStart: boolean;
  /** Visitor deletions and retention; tests call `jobs.runOnce()` with an injected clock. */
  jobs: BackgroundJobs;
  /** Resolves to the base URL, e.g. http://127.0.0.1:43123. */
  listen(): Promise<string>;
  /** Graceful: finishes in-flight requests, stops jobs, closes the database and Redis. */
  close(): Promise<void>;
}

export async function createService(config: ServiceConfig = {}): Promise<Service> {
  const resolved = resolveConfig(config);
  const logger = createLogger(resolved.logLevel);
  const store = openStore({ dataDir: resolved.dataDir, databaseUrl: resolved.databaseUrl });
  let redis: Redis | undefined;
  try {
    await store.migrate().catch((err: Error) => {
      throw new Error(`${store.location}: ${err.message}`);
    });
    const { bootstrap, created } = await ensureBootstrap(store, { region: resolved.region, now: resolved.clock() });
    if (resolved.redisUrl) {
      redis = await connectRedis(resolved.redisUrl, logger);
    }
    const ctx: ServiceContext = {
      config: resolved,
      store,
      clock: resolved.clock,
      rateLimiter: createRateLimiter({ redis, keyPrefix: resolved.redisKeyPrefix }),
      logger,
      identifier: createIdentifier({ store, tokenSecret: await visitorTokenSecret(store) }),
      ruleEvaluator: createExpressionEvaluator({ warn: (message, expression) => logger.warn({ expression }, message) }),
      bootstrap,
      redis,
    };
    const app = await buildApp(ctx);
    const jobs = startBackgroundJobs(ctx);
    let closed = false;
    return {
      app,
      ctx,
      bootstrap,
      firstStart: created,
      jobs,
      async listen() {
        await app.listen({ port: resolved.port, host: resolved.host });
        const address = app.server.address();
        const port = typeof address === 'object' && address ? address.port : resolved.port;
        const host = resolved.host.includes(':') ? `[${resolved.host}]` : resolved.host;
        return `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${port}`;
      },
      async close() {
        if (closed) return;
        closed = true;
        await app.close();
        await jobs.stop();
        await store.destroy();
        if (redis) await redis.quit().catch(() => redis?.disconnect());
      },
    };
  } catch (err) {
    await store.destroy().catch(() => undefined);
    redis?.disconnect();
    throw err;
  }
}

/** Connects at start (a wrong REDIS_URL fails the start clearly); later outages are logged and retried. */
async function connectRedis(url: string, logger: ServiceContext['logger']): Promise<Redis> {
  const { Redis: RedisClient } = await importOptional<typeof IORedis>('ioredis', 'REDIS_URL');
  const redis = new RedisClient(url, { lazyConnect: true, maxRetriesPerRequest: 2 });
  let lastError: Error | undefined;
  redis.on('error', (err: Error) => {
    lastError = err;
    logger.warn({ err: err.message }, 'Redis connection error');
  });
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    throw new Error(`cannot connect to Redis at ${redactUrl(url)}: ${(lastError ?? (err as Error)).message}`);
  }
  return redis;
}
