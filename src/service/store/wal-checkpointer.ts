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
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

const CHECKPOINT_INTERVAL_MS = 250;
/** Pages (4 KiB) the WAL may reach before the service's own connection checkpoints. */
export const BACKSTOP_CHECKPOINT_PAGES = 16_000;
/** Pages in the log above which the worker makes it start over (a quarter of the backstop). */
const RESTART_PAGES = BACKSTOP_CHECKPOINT_PAGES / 4;
/** How long a RESTART checkpoint waits for the write lock and for readers. */
const RESTART_WAIT_MS = 100;
/** After a RESTART that could not finish, how long the worker only runs passive checkpoints. */
const RESTART_BACKOFF_MS = 2000;

// CommonJS, evaluated in the worker; the driver path is resolved here so the worker finds it
// wherever the service runs from.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
// RESTART holds back new writers while it waits for readers to move past the log: it gives up
// after waitMs rather than keep them waiting. A reader that keeps it waiting (a long search)
// is likely still there on the next tick: it is not tried again for backoffMs.
const db = new SQLite(workerData.file, { fileMustExist: true, timeout: workerData.waitMs });
let restartAfter = 0;
const timer = setInterval(() => {
  try {
    const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)');
    if (log < workerData.restartPages || Date.now() < restartAfter) return;
    const [{ busy }] = db.pragma('wal_checkpoint(RESTART)');
    if (busy) restartAfter = Date.now() + workerData.backoffMs;
  } catch { /* closing, or an error the next tick meets again */ }
}, workerData.intervalMs);
parentPort.once('message', () => { clearInterval(timer); db.close(); parentPort.close(); });
`;

export interface WalCheckpointer {
  /** Stops the worker (its connection closes after any checkpoint in progress). */
  stop(): void;
}

export function startWalCheckpointer(file: string, opts: { restartPages?: number } = {}): WalCheckpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const workerData = { driver, file, intervalMs: CHECKPOINT_INTERVAL_MS, restartPages: opts.restartPages ?? RESTART_PAGES, waitMs: RESTART_WAIT_MS, backoffMs: RESTART_BACKOFF_MS };
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData });
  // A failed worker only means checkpoints fall back to the service's connection (backstop).
  worker.on('error', () => undefined);
  worker.unref();
  return { stop: () => worker.postMessage('stop') };
}
