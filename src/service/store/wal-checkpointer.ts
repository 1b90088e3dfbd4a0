/**
 * WAL checkpoints off the event loop. SQLite copies the write-ahead log back into the
 * database file (and syncs it) in the commit that crosses `wal_autocheckpoint`, inside that
 * commit: with better-sqlite3 the event loop waits for the copy and the sync. Instead a worker
 * thread with its own connection runs passive checkpoints (they never block the service's
 * reads or writes) every quarter second; the service's connection keeps a far higher automatic
 * threshold only as a backstop should the worker stop.
 *
 * A passive checkpoint copies the log but does not let it start over: the log is reused from
 * its beginning only when a write begins after a checkpoint that copied every frame, and under
 * steady writes another commit nearly always comes first. The log then grows to the backstop,
 * whose checkpoint (copy and fsync) runs inside one of the service's commits, on its event loop:
 * a stall every few seconds. So once the log holds `restartPages`, right after a passive pass
 * has copied nearly all of it, the worker runs a RESTART checkpoint: it holds the write lock
 * while it copies the last frames and syncs (the service's writers wait for it off the event
 * loop, sqlite-writer.ts), and the next commit writes the log from its beginning again.
 *
 * What that RESTART syncs is everything the passive passes copied since the last sync: SQLite
 * syncs the database file only in a checkpoint that reaches the end of the log, which under
 * steady writes is only the RESTART. That was 8-10 ms of fsync with the write lock held, twice
 * a second at half the service's maximum rate: the commits queued behind it made most of the
 * requests that took over 10 ms. So the worker first syncs the file itself, without any lock
 * (fdatasync on a descriptor of its own), then copies the frames committed meanwhile, and only
 * then takes the lock: the RESTART has a few pages left to copy and sync.
 *
 * The RESTART does not wait in SQLite's busy handler either: that sleeps with the write lock
 * held while readers finish. It gives up at once and is tried again a millisecond later.
 *
 * The worker counts each step and the time it took (totals(), for the metrics): the passes
 * and the sync take cores the service needs, and the RESTART holds back every commit, so an
 * operator can set them beside the request latency.
 */
import { createRequire } from 'node:module';
import { fstatSync, openSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Warn } from './file-modes.js';
import { isBusyError } from './sqlite-writer.js';

const CHECKPOINT_INTERVAL_MS = 250;
/** Pages (4 KiB) the WAL may reach before the service's own connection checkpoints. */
export const BACKSTOP_CHECKPOINT_PAGES = 16_000;
/** Pages in the log above which the worker makes it start over (a quarter of the backstop). */
const RESTART_PAGES = BACKSTOP_CHECKPOINT_PAGES / 4;
/** How long the worker keeps trying a RESTART checkpoint (for the write lock and for readers to finish). */
const RESTART_WAIT_MS = 100;
/** After a RESTART that could not finish, how long the worker only runs passive checkpoints. */
const RESTART_BACKOFF_MS = 2000;

// CommonJS, evaluated in the worker; the driver path is resolved here so the worker finds it
// wherever the service runs from.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { fdatasyncSync } = require('node:fs');
const SQLite = require(workerData.driver);
// Per step (0 passive, 1 sync, 2 restart): how many, and their microseconds (shared with the service).
const totals = workerData.totals;
function record(step, started) {
  Atomics.add(totals, step * 2, 1n);
  Atomics.add(totals, step * 2 + 1, BigInt(Math.round((performance.now() - started) * 1000)));
}
function timed(step, run) {
  const started = performance.now();
  const result = run();
  record(step, started);
  return result;
}
// No busy handler: a RESTART that finds readers in the log (or the write lock taken) returns at
// once, and the write lock is free until the next try.
const db = open();
function open() {
  try {
    return new SQLite(workerData.file, { fileMustExist: true, timeout: 0 });
  } catch (e) {
    // The driver's error class reaches the service without its message: send a plain Error.
    throw Object.assign(new Error(e.message), { code: e.code });
  }
}
// A RESTART keeps trying until its deadline. A reader that outlasts it (a long search) is likely
// still there on the next tick: RESTART is not tried again for backoffMs.
let restartAfter = 0;
let retry;
${String(isBusyError)}
// A failure (disk full, I/O error) goes to the service's log once, not on every tick; once a
// pass succeeds, the same failure is reported again should it come back.
let reported;
function report(e) {
  const message = String(e && e.message || e);
  if (message !== reported) parentPort.postMessage({ failure: message, code: e && e.code });
  reported = message;
}
function restart(deadline) {
  retry = undefined;
  let busy;
  try {
    const started = performance.now();
    busy = db.pragma('wal_checkpoint(RESTART)')[0].busy;
    // Only a RESTART that went through counts: a busy one returned at once, holding nothing.
    if (!busy) record(2, started);
  } catch (e) {
    if (!isBusyError(e)) return report(e);
    busy = 1;
  }
  if (!busy) {
    reported = undefined;
    return;
  }
  if (Date.now() >= deadline) restartAfter = Date.now() + workerData.backoffMs;
  else retry = setTimeout(() => restart(deadline), 1);
}
const timer = setInterval(() => {
  if (retry !== undefined) return;
  try {
    const [{ log }] = timed(0, () => db.pragma('wal_checkpoint(PASSIVE)'));
    if (log < workerData.restartPages || Date.now() < restartAfter) {
      reported = undefined;
      return;
    }
    // Without a descriptor (or should the sync fail) the RESTART syncs it all itself, as before.
    if (workerData.syncFd !== undefined) {
      timed(1, () => { try { fdatasyncSync(workerData.syncFd); } catch {} });
      timed(0, () => db.pragma('wal_checkpoint(PASSIVE)'));
    }
    restart(Date.now() + workerData.waitMs);
  } catch (e) {
    if (!isBusyError(e)) report(e);
  }
}, workerData.intervalMs);
parentPort.once('message', () => { clearInterval(timer); clearTimeout(retry); db.close(); parentPort.close(); });
`;

/**
 * The descriptor the worker syncs the database file with: one per file and process, opened
 * once and never closed. Closing any descriptor of a file releases every POSIX advisory lock
 * this process holds on it, its SQLite connections' too (SQLite's "How To Corrupt Your
 * Database Files", 2.2). A file replaced at the same path gets a descriptor of its own.
 * Undefined when the file cannot be opened: the RESTART then syncs it all, as before.
 */
const syncDescriptors = new Map<string, number>();

function syncDescriptor(file: string): number | undefined {
  const path = resolve(file);
  try {
    const known = syncDescriptors.get(path);
    if (known !== undefined && fstatSync(known).ino === statSync(path).ino) return known;
    const fd = openSync(path, 'r');
    syncDescriptors.set(path, fd);
    return fd;
  } catch {
    return undefined;
  }
}

/** How many times a step ran and the seconds it took in all, since the worker started. */
export interface CheckpointStep {
  count: number;
  seconds: number;
}

/**
 * The worker's steps: `passive` copies the log into the database file (no lock), `sync` syncs
 * that file (no lock), `restart` copies the last frames and syncs with the write lock held
 * (every commit waits meanwhile) so that the log starts over.
 */
export interface CheckpointTotals {
  passive: CheckpointStep;
  sync: CheckpointStep;
  restart: CheckpointStep;
}

export interface WalCheckpointer {
  /** Stops the worker (its connection closes after any checkpoint in progress). */
  stop(): void;
  totals(): CheckpointTotals;
}

export interface WalCheckpointerOptions {
  restartPages?: number;
  /** Told of a failed checkpoint (once until one succeeds) and of a worker that stopped. */
  warn?: Warn;
}

export function startWalCheckpointer(file: string, opts: WalCheckpointerOptions = {}): WalCheckpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const totals = new BigInt64Array(new SharedArrayBuffer(6 * BigInt64Array.BYTES_PER_ELEMENT));
  const workerData = { driver, file, syncFd: syncDescriptor(file), intervalMs: CHECKPOINT_INTERVAL_MS, restartPages: opts.restartPages ?? RESTART_PAGES, waitMs: RESTART_WAIT_MS, backoffMs: RESTART_BACKOFF_MS, totals };
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData });
  const warn = opts.warn ?? (() => undefined);
  const fallback = `the service's own connection checkpoints once the log holds ${BACKSTOP_CHECKPOINT_PAGES} pages`;
  worker.on('message', (m: { failure: string; code?: string }) =>
    warn('WAL checkpoint failed; the write-ahead log grows until a checkpoint succeeds', { error: m.failure, code: m.code, file }),
  );
  worker.on('error', (e: Error & { code?: string }) => warn(`WAL checkpoint worker stopped; ${fallback}`, { error: e.message, code: e.code, file }));
  worker.unref();
  const step = (i: number): CheckpointStep => ({ count: Number(Atomics.load(totals, i * 2)), seconds: Number(Atomics.load(totals, i * 2 + 1)) / 1e6 });
  return { stop: () => worker.postMessage('stop'), totals: () => ({ passive: step(0), sync: step(1), restart: step(2) }) };
}
