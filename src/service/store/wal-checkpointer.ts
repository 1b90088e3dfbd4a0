/**
 * WAL checkpoints off the event loop. SQLite copies the write-ahead log back into the
 * database file (and syncs it) in the commit that crosses `wal_autocheckpoint`, inside that
 * commit: with better-sqlite3 the event loop waits for the copy and the sync. Instead a worker
 * thread with its own connection runs passive checkpoints (they never block the service's
 * reads or writes) every quarter second; the service's connection keeps a far higher automatic
 * threshold only as a backstop should the worker stop.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

const CHECKPOINT_INTERVAL_MS = 250;
/** Checkpoints in a row while behind; see the worker source. */
const MAX_PASSES = 8;
/** Pages (4 KiB) the WAL may reach before the service's own connection checkpoints. */
export const BACKSTOP_CHECKPOINT_PAGES = 16_000;

// CommonJS, evaluated in the worker; the driver path is resolved here so the worker finds it
// wherever the service runs from.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file, { fileMustExist: true });
// A commit starts the WAL over only when every frame in it was copied before that commit began.
// Under steady writes a single checkpoint never achieves that: it copies the frames there were
// when it started ('log' below) while commits append more. The WAL then grows until the
// service's own connection reaches its backstop and checkpoints inside a commit, on the event
// loop (4 such stalls of 10-20 ms of fsync alone per 8 s at half load in the service benchmark).
// So checkpoint again at once while commits came in during the previous pass: each pass copies
// only what was appended meanwhile, one soon finds nothing new (the WAL was all copied in a
// pause between commits), and the next commit starts the WAL over.
const timer = setInterval(() => {
  try {
    let previous = -1;
    for (let pass = 0; pass < workerData.maxPasses; pass++) {
      const [result] = db.pragma('wal_checkpoint(PASSIVE)');
      if (!result || result.busy || result.log === previous) break;
      previous = result.log;
    }
  } catch { /* busy or closing: the next tick retries */ }
}, workerData.intervalMs);
parentPort.once('message', () => { clearInterval(timer); db.close(); parentPort.close(); });
`;

export interface WalCheckpointer {
  /** Stops the worker (its connection closes after any checkpoint in progress). */
  stop(): void;
}

export function startWalCheckpointer(file: string): WalCheckpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file, intervalMs: CHECKPOINT_INTERVAL_MS, maxPasses: MAX_PASSES } });
  // A failed worker only means checkpoints fall back to the service's connection (backstop).
  worker.on('error', () => undefined);
  worker.unref();
  return { stop: () => worker.postMessage('stop') };
}
