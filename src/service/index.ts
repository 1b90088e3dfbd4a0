/**
 * `createService(config)`: the Tessera identification service as a library. The CLI
 * (`tessera start`) is a thin layer over it (with `--workers N`, over `prepareService` in the
 * primary process and `createService` in each worker: cli/cluster.ts).
 */
import type { FastifyInstance } from 'fastify';
import type * as IORedis from 'ioredis';
import type { Redis } from 'ioredis';
import { buildApp, buildOpsApp } from './app.js';
import { type Bootstrap, ensureBootstrap } from './bootstrap.js';
import { resolveConfig, type ResolvedConfig, type ServiceConfig } from './config.js';
import type { ServiceContext } from './context.js';
import { createExpressionEvaluator } from './filtering/expr/index.js';
import { createIdentifier } from './identification/identifier.js';
import { startBackgroundJobs, type BackgroundJobs } from './jobs/index.js';
import { createLogger } from './logger.js';
import { createMetrics } from './ops/metrics.js';
import { importOptional } from './store/optional-dependency.js';
import { createRateLimiter } from './rate-limiter.js';
import { resolveMasterKey } from './master-key.js';
import { assertKeysReadable } from './sealing/encryption-keys.js';
import { redactUrl, type OpenDatabaseOptions } from './store/database.js';
import type { Warn } from './store/file-modes.js';
import { postgresAutovacuumIsOn } from './store/statistics.js';
import { maintainEventPartitions } from './store/events.js';
import { openStore, type Engine, type Store } from './store/index.js';
import { startWebhookWorker, type WebhookWorker } from './webhooks/worker.js';
import { visitorTokenSecret } from './token-secret.js';

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
  /** Sends queued webhook deliveries; polls on its own, tests may call `runOnce()`. */
  webhooks: WebhookWorker;
  /** Resolves to the base URL, e.g. http://127.0.0.1:43123 (and starts the ops listener, if configured). */
  listen(): Promise<string>;
  /** The ops listener's base URL once listening, when `opsPort` is configured. */
  opsUrl?: string;
  /** Graceful: finishes in-flight requests and webhook sends, stops jobs, closes the database and Redis. */
  close(): Promise<void>;
}

/** How this process runs next to others (`tessera start --workers N`); the defaults suit one process. */
export interface ServiceRole {
  /**
   * This process is a worker of `node:cluster` whose primary called `serveClusterRateLimits()`
   * (cluster-rate-limits/primary.ts): without Redis, rate limits are counted in the primary, for all workers.
   */
  clusterWorker?: boolean;
  /**
   * Run the background jobs on their timer, and on SQLite the WAL checkpoint worker (default
   * true). Of several processes on one database, one is enough; `jobs.runOnce()` works either
   * way.
   */
  backgroundJobs?: boolean;
}

/** What a start leaves in the database and the data directory before it serves (prepare()). */
interface Prepared {
  store: Store;
  masterKey: Uint8Array | undefined;
  bootstrap: Bootstrap;
  created: boolean;
  tokenSecret: Uint8Array;
}

/**
 * Migrates, creates or reads the master key, checks the encryption keys can be read, creates
 * or reads the first-start records and the visitor-token secret. Each step is safe when
 * several processes start together; the store stays open for the caller.
 */
async function prepare(resolved: ResolvedConfig, warn: Warn, opts: Pick<OpenDatabaseOptions, 'poolSize' | 'sharedWithWriters' | 'walCheckpoints'> = {}): Promise<Prepared> {
  const store = openStore({ dataDir: resolved.dataDir, databaseUrl: resolved.databaseUrl, warn, ...opts });
  try {
    await store.migrate().catch((err: Error) => {
      throw new Error(`${store.location}: ${err.message}`);
    });
    if (!(await postgresAutovacuumIsOn(store))) {
      warn('PostgreSQL runs with autovacuum off: the service analyses its tables every 10 minutes itself, but only VACUUM reclaims the space of updated and deleted rows; schedule it (vacuumdb) or turn autovacuum on', {});
    }
    // PostgreSQL: the partitions of events for this week and the weeks ahead (the background job
    // keeps them ahead). Not fatal: until they exist the DEFAULT partition takes the events.
    await maintainEventPartitions(store, resolved.clock()).catch((err: unknown) =>
      warn('could not create the event partitions of the weeks ahead; the background job will retry', { err: err instanceof Error ? err.message : String(err) }),
    );
    const masterKey = resolveMasterKey({ masterKey: resolved.masterKey, dataDir: resolved.dataDir, engine: store.engine });
    await assertKeysReadable({ store, masterKey });
    const { bootstrap, created } = await ensureBootstrap(store, { region: resolved.region, now: resolved.clock() });
    const tokenSecret = await visitorTokenSecret(store, { dataDir: resolved.dataDir, warn });
    return { store, masterKey, bootstrap, created, tokenSecret };
  } catch (err) {
    await store.destroy().catch(() => undefined);
    throw err;
  }
}

/**
 * The one-time work of a start, without serving: what the primary process of `tessera start
 * --workers N` does before it starts the workers, so that a first start creates (and reports)
 * the keys once and the workers find everything in place.
 */
export async function prepareService(config: ServiceConfig = {}): Promise<{ bootstrap: Bootstrap; firstStart: boolean; engine: Engine }> {
  const resolved = resolveConfig(config);
  const logger = createLogger(resolved.logLevel, resolved.logDestination);
  const { store, bootstrap, created } = await prepare(resolved, (message, details) => logger.warn(details, message), { poolSize: 2, walCheckpoints: false });
  const engine = store.engine;
  await store.destroy();
  return { bootstrap, firstStart: created, engine };
}

/** createService and listen(); a service that cannot listen (port in use) is closed again. */
export async function startListening(config: ServiceConfig = {}, role: ServiceRole = {}): Promise<{ service: Service; url: string }> {
  const service = await createService(config, role);
  try {
    return { service, url: await service.listen() };
  } catch (err) {
    await service.close();
    throw err;
  }
}

export async function createService(config: ServiceConfig = {}, role: ServiceRole = {}): Promise<Service> {
  const resolved = resolveConfig(config);
  const logger = createLogger(resolved.logLevel, resolved.logDestination);
  const warn = (message: string, details: Record<string, unknown>) => logger.warn(details, message);
  const { store, masterKey, bootstrap, created, tokenSecret } = await prepare(resolved, warn, { sharedWithWriters: role.clusterWorker, walCheckpoints: role.backgroundJobs ?? true });
  let redis: Redis | undefined;
  try {
    if (resolved.redisUrl) {
      redis = await connectRedis(resolved.redisUrl, logger);
    }
    const ctx: ServiceContext = {
      config: resolved,
      store,
      clock: resolved.clock,
      rateLimiter: createRateLimiter({ redis, keyPrefix: resolved.redisKeyPrefix, cluster: role.clusterWorker }),
      logger,
      identifier: createIdentifier({ store, tokenSecret }),
      ruleEvaluator: createExpressionEvaluator({ warn: (message, expression) => logger.warn({ expression }, message) }),
      bootstrap,
      masterKey,
      redis,
      metrics: createMetrics(store),
    };
    const app = await buildApp(ctx);
    const opsApp = resolved.opsPort === undefined ? undefined : await buildOpsApp(ctx);
    const jobs = startBackgroundJobs(ctx, { timer: role.backgroundJobs ?? true });
    const webhooks = startWebhookWorker(ctx);
    ctx.webhookHandOff = webhooks;
    let closed = false;
    const service: Service = {
      app,
      ctx,
      bootstrap,
      firstStart: created,
      jobs,
      webhooks,
      async listen() {
        if (opsApp) service.opsUrl = await listenOn(opsApp, resolved.opsHost, resolved.opsPort!);
        return listenOn(app, resolved.host, resolved.port);
      },
      async close() {
        if (closed) return;
        closed = true;
        await opsApp?.close();
        await app.close();
        // Sends in flight end within the send timeout and are settled; nothing is left half-done.
        await webhooks.stop();
        await jobs.stop();
        await store.destroy();
        if (redis) await redis.quit().catch(() => redis?.disconnect());
      },
    };
    return service;
  } catch (err) {
    await store.destroy().catch(() => undefined);
    redis?.disconnect();
    throw err;
  }
}

/** Listens on host:port; resolves to the base URL (a wildcard host reads as 127.0.0.1). */
async function listenOn(app: FastifyInstance, host: string, port: number): Promise<string> {
  await app.listen({ port, host });
  const address = app.server.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return `http://${shown === '0.0.0.0' || shown === '[::]' ? '127.0.0.1' : shown}:${actual}`;
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
    throw new Error(`cannot connect to Redis at ${redactUrl(url)}: ${(lastError ?? (err as Error)).message}`, { cause: err });
  }
  return redis;
}
