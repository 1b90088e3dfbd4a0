/**
 * The handle every store function receives: the `Store` type and, for store/ files only, the
 * way to its internals (the Kysely instance and the per-instance state). Apart from index.ts
 * (which opens stores) so that store files can import it without an import cycle.
 */
import type { CompiledQuery, Kysely } from 'kysely';
import { announceChange, type ChangeFeed } from './change-feed.js';
import type { Engine } from './database.js';
import type { ReadCaches } from './read-cache.js';
import type { EventPartition } from './event-partitions.js';
import type { Database, DeliveryRows, EventsTable } from './schema.js';
import type { CheckpointTotals } from './wal-checkpointer.js';

export const INTERNALS: unique symbol = Symbol('store internals');

/** Work for a shared SQLite transaction (group-commit.ts); `trx` is the transaction's store. */
export type GroupWork = (trx: Store) => Promise<unknown>;

/** Writes items together (group-commit.ts); `queued()` counts the items waiting. */
export type GroupWriter<T> = ((item: T) => Promise<void>) & { queued(): number };

/** The PostgreSQL pool's counters, read by the metrics. */
export interface PoolCounters {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/**
 * The named values of one call: an object holding them, or a function from a value's name to
 * the value. The function is for a statement whose values come from several objects: merging
 * them into one with spreads took about 30 µs and left about 20 KB of garbage per call for the
 * 35 values of a visit written with its event (Node 20), more than the rest of that write.
 */
export type PreparedValues = object | ((name: string) => unknown);

/** A hot statement compiled once per store (prepared-query.ts). */
export interface CompiledPrepared {
  query: CompiledQuery<unknown>;
  bind: (values: PreparedValues) => unknown[];
}

/** What one store instance keeps between statements; shared by the store and its transactions. */
export interface StoreState {
  readCaches: ReadCaches;
  /** Changes made by other processes (change-feed.ts). */
  changes: ChangeFeed;
  /** Compiled hot statements, per statement definition and variant key. */
  compiled: Map<object, Map<string, CompiledPrepared>>;
  /** PostgreSQL: the partitions of `events` as last listed (recent-partitions.ts). */
  eventPartitions?: { list: readonly EventPartition[]; listedAt: number };
  /** SQLite: the shared transaction of concurrent writes (group-commit.ts). */
  commitTogether?: GroupWriter<GroupWork>;
  /** PostgreSQL: the multi-row event insert (with webhook deliveries) of concurrent requests (events.ts). */
  insertEventRow?: GroupWriter<{ row: EventsTable; deliveries: DeliveryRows }>;
  /** PostgreSQL: the connection pool. */
  pool?: PoolCounters;
  /** SQLite: the WAL checkpoint worker's steps so far (wal-checkpointer.ts), when this process runs it. */
  checkpoints?: () => CheckpointTotals;
}

export interface StoreInternals {
  /** The Kysely instance, or the transaction when this store is a transaction's view. */
  db: Kysely<Database>;
  state: StoreState;
}

export interface Store {
  readonly engine: Engine;
  /** Where the data lives, for people: the SQLite file or the PostgreSQL URL without password. */
  readonly location: string;
  /** Runs `work` in one transaction; `trx` is a store whose functions run inside it. */
  transaction<T>(work: (trx: Store) => Promise<T>): Promise<T>;
  /** Brings the schema to the latest version; returns the migrations applied. */
  migrate(): Promise<string[]>;
  destroy(): Promise<void>;
  readonly [INTERNALS]: StoreInternals;
}

/** For store/ files only: the Kysely instance (or transaction) and the instance state behind a store. */
export function internalsOf(store: Store): StoreInternals {
  return store[INTERNALS];
}

/**
 * Runs a write to a cached table (keys, environments, rules, workspaces) in one transaction
 * that also announces it to the other processes, then forgets this store's cached reads (after
 * the commit: a read between an earlier invalidation and the commit could cache the old rows).
 */
export async function writeShared<T>(store: Store, work: (trx: Store) => Promise<T>): Promise<T> {
  const result = await store.transaction(async (trx) => {
    const value = await work(trx);
    await announceChange(internalsOf(trx).db, trx.engine);
    return value;
  });
  internalsOf(store).state.readCaches.invalidate();
  return result;
}

/** The Kysely instance behind a store, for tests that assert on rows directly. */
export function kyselyOf(store: Store): Kysely<Database> {
  return store[INTERNALS].db;
}
