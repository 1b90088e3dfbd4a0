/**
 * The store: the service's one data-access layer. Every SQL statement of the service lives in
 * this folder, one file per resource, one exported function per question the service asks
 * (as umami's src/queries).
 *
 * Shape: resource files export plain functions that take the store as their first argument
 * (`findApiKeyByToken(store, token)`, `insertEvent(store, ...)`), never a Kysely instance.
 * The `Store` object itself only opens, migrates, runs transactions and closes; it also holds
 * everything per instance (the Kysely instance, read caches, compiled statements, group-commit
 * writers), so two stores in one process share nothing. Only files in store/ reach those
 * internals (`internalsOf`); tests may reach Kysely through `kyselyOf` for assertions.
 */
import type { Kysely } from 'kysely';
import { migrateToLatest, openDatabase, type Engine } from './database.js';
import type { GroupWork } from './group-commit.js';
import type { CompiledPrepared } from './prepared-query.js';
import { createReadCaches, type ReadCaches } from './read-cache.js';
import type { Database, EventsTable } from './schema.js';

export type { Engine } from './database.js';

const INTERNALS: unique symbol = Symbol('store internals');

/** What one store instance keeps between statements; shared by the store and its transactions. */
export interface StoreState {
  readCaches: ReadCaches;
  /** Compiled hot statements (prepared-query.ts), per statement definition. */
  compiled: Map<object, CompiledPrepared>;
  /** SQLite: the shared transaction of concurrent writes (group-commit.ts). */
  commitTogether?: (work: GroupWork) => Promise<void>;
  /** PostgreSQL: the multi-row event insert of concurrent requests (events.ts). */
  insertEventRow?: (row: EventsTable) => Promise<void>;
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

export function openStore(opts: { dataDir: string; databaseUrl?: string; poolSize?: number }): Store {
  const { db, engine, location } = openDatabase(opts);
  return storeView(db, engine, location, { readCaches: createReadCaches(), compiled: new Map() });
}

function storeView(db: Kysely<Database>, engine: Engine, location: string, state: StoreState): Store {
  const store: Store = {
    engine,
    location,
    transaction: (work) =>
      db.isTransaction ? work(store) : db.transaction().execute((trx) => work(storeView(trx, engine, location, state))),
    migrate: () => migrateToLatest(db),
    destroy: () => db.destroy(),
    [INTERNALS]: { db, state },
  };
  return store;
}

/** For store/ files only: the Kysely instance (or transaction) and the instance state behind a store. */
export function internalsOf(store: Store): StoreInternals {
  return store[INTERNALS];
}

/** The Kysely instance behind a store, for tests that assert on rows directly. */
export function kyselyOf(store: Store): Kysely<Database> {
  return store[INTERNALS].db;
}
