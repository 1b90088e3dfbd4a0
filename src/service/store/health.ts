/** How the database is doing, for the readiness check and the metrics (ops/). */
import { Migrator, sql } from 'kysely';
import { internalsOf, type Store } from './handle.js';
import { migrationProvider } from './migrations/index.js';
import type { CheckpointTotals } from './wal-checkpointer.js';

/** Resolves when the database answers a trivial query. */
export async function pingDatabase(store: Store): Promise<void> {
  await sql`select 1`.execute(internalsOf(store).db);
}

/** Names of the migrations not applied yet. */
export async function pendingMigrations(store: Store): Promise<string[]> {
  const migrations = await new Migrator({ db: internalsOf(store).db, provider: migrationProvider }).getMigrations();
  return migrations.filter((m) => m.executedAt === undefined).map((m) => m.name);
}

export interface StoreLoad {
  /** Writes waiting for the next shared transaction or multi-row insert. */
  queuedWrites: number;
  /** PostgreSQL: the pool's connections. */
  connections?: { total: number; idle: number; waiting: number };
}

export function storeLoad(store: Store): StoreLoad {
  const { state } = internalsOf(store);
  const queuedWrites = (state.commitTogether?.queued() ?? 0) + (state.insertEventRow?.queued() ?? 0);
  const pool = state.pool;
  return pool
    ? { queuedWrites, connections: { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount } }
    : { queuedWrites };
}

/** SQLite: the WAL checkpoint worker's steps so far; undefined when this process runs none (PostgreSQL, another worker runs it). */
export function checkpointTotals(store: Store): CheckpointTotals | undefined {
  return internalsOf(store).state.checkpoints?.();
}
