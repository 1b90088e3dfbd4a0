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
/** Pages (4 KiB) the WAL may reach before the service's own connection checkpoints. */
export const BACKSTOP_CHECKPOINT_PAGES = 16_000;

// CommonJS, evaluated in the worker; the driver path is resolved here so the worker finds it
// wherever the service runs from.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file, { fileMustExist: true });
const timer = setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { /* busy or closing: the next tick retries */ }
}, workerData.intervalMs);
parentPort.once('message', () => { clearInterval(timer); db.close(); parentPort.close(); });
`;

export interface WalCheckpointer {
  /** Stops the worker (its connection closes after any checkpoint in progress). */
  stop(): void;
}

export function startWalCheckpointer(file: string): WalCheckpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file, intervalMs: CHECKPOINT_INTERVAL_MS } });
  // A failed worker only means checkpoints fall back to the service's connection (backstop).
  worker.on('error', () => undefined);
  worker.unref();
  return { stop: () => worker.postMessage('stop') };
}
