/**
 * Planner statistics. Without them SQLite answers a search by visitor (or linked id, URL, ...)
 * from the time index and scans the whole window; with them it picks the filter's index.
 * PostgreSQL keeps its statistics itself (autovacuum), SQLite only when asked: `PRAGMA
 * optimize` analyses the tables whose size changed a lot, and `analysis_limit` keeps each
 * analysis to a sample so the single connection is never held for long.
 */
import { sql } from 'kysely';
import { internalsOf, type Store } from './handle.js';

export async function refreshPlannerStatistics(store: Store): Promise<void> {
  if (store.engine !== 'sqlite') return;
  const { db } = internalsOf(store);
  await sql`PRAGMA analysis_limit = 400`.execute(db);
  // 0x10002: consider every table, not only those this connection has queried.
  await sql`PRAGMA optimize = 0x10002`.execute(db);
}
