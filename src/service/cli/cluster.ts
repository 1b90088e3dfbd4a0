/**
 * `tessera start --workers N` (N > 1): the service in N processes of `node:cluster` on one
 * port and one database.
 *
 * The primary process does the one-time work first (migrations, master key file, first-start
 * records and keys, visitor-token secret: `prepareService`), then forks the workers, which run
 * the ordinary service (`createService`) and listen on the same port: the primary accepts the
 * connections and hands them out in turn. It prints the start report once every worker
 * listens, replaces a worker that dies (at once, then with a growing delay while replacements
 * keep dying young, so that a crash loop does not spin), and on SIGINT/SIGTERM passes SIGTERM
 * on to every worker, which shuts down gracefully; a second signal kills them.
 *
 * What the workers share: the database (SQLite in WAL mode, one writer at a time:
 * store/sqlite-writer.ts; or PostgreSQL, a pool per worker), the cache invalidation that
 * already works between processes (store/change-feed.ts), and the rate-limit counters: in Redis
 * when configured, otherwise in the primary (rate-limiter.ts). One worker, the one in slot 0
 * (and its replacement), runs the background jobs and, on SQLite, the WAL checkpoints
 * (wal-checkpointer.ts); every worker runs a webhook worker (their leases keep a delivery to
 * one sender).
 *
 * The workers are started with the command line this process was started with
 * (`process.argv`), so they parse the same options; `TESSERA_WORKER_SLOT` tells them apart.
 */
import cluster, { type Worker } from 'node:cluster';
import { resolveConfig, type ServiceConfig } from '../config.js';
import { prepareService, startListening, type Bootstrap } from '../index.js';
import type { Engine } from '../store/index.js';
import { createLogger } from '../logger.js';
import { serveClusterRateLimits } from '../cluster-rate-limits/primary.js';

const SLOT_ENV = 'TESSERA_WORKER_SLOT';
/** The slot whose worker runs the background jobs. */
const JOBS_SLOT = 0;
/** A worker that dies sooner than this after it started counts as a crash loop. */
const MIN_UPTIME_MS = 10_000;
const MAX_RESTART_DELAY_MS = 30_000;

/**
 * The workers' old generation starts at this size (V8's `--initial-old-space-size`, MB). V8
 * otherwise sizes it from the live heap, about 40 MB for a worker: under load it then compacts
 * it every second or two, and each compaction's marking (about 35 ms, on the cores the requests
 * need) made a burst of slow requests at a steady load (docs/performance.md).
 */
export const WORKER_OLD_SPACE_MB = 128;

/** The workers' Node options: this process's, with WORKER_OLD_SPACE_MB unless they size the old generation themselves. */
export function workerExecArgv(execArgv: readonly string[]): string[] {
  const sized = execArgv.some((arg) => /^--initial[-_]old[-_]space[-_]size\b/.test(arg));
  return sized ? [...execArgv] : [...execArgv, `--initial-old-space-size=${WORKER_OLD_SPACE_MB}`];
}

/** What a worker tells the primary (besides the rate-limit leases: cluster-rate-limits/messages.ts). */
type WorkerMessage = { tessera: 'listening'; url: string; opsUrl?: string };

/** True in a worker process started by `startPrimary`. */
export function isServiceWorker(): boolean {
  return cluster.isWorker && process.env[SLOT_ENV] !== undefined;
}

export interface ClusterStart {
  url: string;
  opsUrl?: string;
  bootstrap: Bootstrap;
  firstStart: boolean;
  engine: Engine;
}

/**
 * The primary: prepares the database, forks `workers` workers, calls `onListening` once all of
 * them listen, and resolves when they are all stopped after a signal. Rejects when a worker
 * fails before the service is up (its error is on its standard error).
 */
export async function startPrimary(config: ServiceConfig, workers: number, onListening: (start: ClusterStart) => void): Promise<void> {
  const resolved = resolveConfig(config);
  const logger = createLogger(resolved.logLevel, resolved.logDestination).child({ role: 'primary' });
  const prepared = await prepareService(config);
  if (!resolved.redisUrl) serveClusterRateLimits();

  const slots = Array.from({ length: workers }, () => ({
    worker: undefined as Worker | undefined,
    startedAt: 0,
    /** Replacements in a row that died within MIN_UPTIME_MS. */
    quickDeaths: 0,
    restart: undefined as NodeJS.Timeout | undefined,
  }));
  /** Slots whose worker listened at least once. */
  const listening = new Set<number>();
  let up = false;
  let stopping = false;
  let failed = false;
  let resolveDone: () => void = () => undefined;
  let rejectStart: (err: Error) => void = () => undefined;
  const done = new Promise<void>((resolve, reject) => {
    resolveDone = resolve;
    rejectStart = reject;
  });
  const live = () => slots.filter((s) => s.worker !== undefined);

  const fork = (slot: number) => {
    const state = slots[slot]!;
    state.restart = undefined;
    const worker = cluster.fork({ [SLOT_ENV]: String(slot) });
    state.worker = worker;
    state.startedAt = Date.now();
    worker.on('message', (message: WorkerMessage) => {
      if (message?.tessera !== 'listening') return;
      logger.info({ worker: slot, workerPid: worker.process.pid, jobs: slot === JOBS_SLOT }, 'worker listening');
      listening.add(slot);
      if (!up && !stopping && listening.size === workers) {
        up = true;
        onListening({ url: message.url, opsUrl: message.opsUrl, ...prepared });
      }
    });
  };

  const stopAll = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'stopping the workers');
    for (const state of slots) {
      clearTimeout(state.restart);
      state.restart = undefined;
      // A signal rather than a message: it also reaches a worker still loading its code.
      state.worker?.process.kill('SIGTERM');
    }
    if (live().length === 0) finish();
  };

  const finish = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    cluster.off('exit', onExit);
    if (!up) rejectStart(new Error('a worker failed to start (its error is above); the service is stopped'));
    else resolveDone();
  };

  const onExit = (worker: Worker, code: number | null, signal: NodeJS.Signals | null) => {
    const slot = slots.findIndex((s) => s.worker === worker);
    if (slot < 0) return;
    const state = slots[slot]!;
    state.worker = undefined;
    const how = signal ? { signal } : { code };
    if (stopping) {
      if (code !== 0) {
        failed = true;
        logger.warn({ worker: slot, workerPid: worker.process.pid, ...how }, 'worker stopped with an error');
      }
      if (live().length === 0) finish();
      return;
    }
    if (!up) {
      // Before the service is up, a worker that fails has hit what the others will hit too
      // (port in use, database unreachable): stop, as a single process would.
      failed = true;
      logger.error({ worker: slot, workerPid: worker.process.pid, ...how }, 'worker failed to start');
      stopAll('a worker failed to start');
      return;
    }
    // The first replacement starts at once; while replacements keep dying young: 1 s, 2 s, ... 30 s.
    state.quickDeaths = Date.now() - state.startedAt < MIN_UPTIME_MS ? state.quickDeaths + 1 : 0;
    const delay = state.quickDeaths <= 1 ? 0 : Math.min(MAX_RESTART_DELAY_MS, 1000 * 2 ** (state.quickDeaths - 2));
    logger.error({ worker: slot, workerPid: worker.process.pid, ...how, restartInMs: delay }, 'worker died; starting a replacement');
    state.restart = setTimeout(() => fork(slot), delay);
  };

  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals > 1) {
      logger.warn({ signal }, 'second signal: killing the workers and exiting immediately');
      for (const state of live()) state.worker!.process.kill('SIGKILL');
      process.exit(1);
    }
    stopAll(signal);
  };

  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  cluster.on('exit', onExit);
  logger.info({ workers, engine: prepared.engine }, 'starting the workers');
  cluster.setupPrimary({ execArgv: workerExecArgv(process.execArgv) });
  for (let slot = 0; slot < workers; slot++) fork(slot);
  await done;
  if (failed) process.exitCode = 1;
}

/**
 * A worker: the service, without the start report (the primary prints it). It stops
 * gracefully on SIGINT or SIGTERM, from the primary or sent to the whole process group (by a
 * terminal or a supervisor), so a repeated signal changes nothing here: the primary is the one
 * that treats a second signal as "kill now".
 */
export async function startWorker(config: ServiceConfig): Promise<void> {
  const slot = Number(process.env[SLOT_ENV]);
  let stop: () => void = () => undefined;
  const stopRequested = new Promise<void>((resolve) => (stop = resolve));
  // Installed before the service starts: a stop may come while it is starting.
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  const { service, url } = await startListening(config, { clusterWorker: true, backgroundJobs: slot === JOBS_SLOT });
  process.send!({ tessera: 'listening', url, opsUrl: service.opsUrl } satisfies WorkerMessage);

  await stopRequested;
  service.ctx.logger.info({ worker: slot }, 'worker shutting down');
  try {
    await service.close();
  } catch (err) {
    service.ctx.logger.error({ err }, 'shutdown failed');
    process.exitCode = 1;
  }
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
}

/** Runs a worker to its end, then exits: the IPC channel to the primary would keep the process alive. */
export async function runWorker(config: ServiceConfig, fail: (err: unknown) => void): Promise<never> {
  try {
    await startWorker(config);
  } catch (err) {
    fail(err);
  }
  process.exit();
}
