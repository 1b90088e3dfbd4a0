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
 * internals (`internalsOf`, handle.ts); tests may reach Kysely through `kyselyOf` for assertions.
 */
import type { Kysely } from 'kysely';
import { migrateToLatest, openDatabase, type Engine, type OpenDatabaseOptions } from './database.js';
import { INTERNALS, type Store, type StoreState } from './handle.js';
import { createReadCaches } from './read-cache.js';
import type { Database } from './schema.js';

export type { Engine } from './database.js';
export { kyselyOf, type Store } from './handle.js';

export function openStore(opts: OpenDatabaseOptions): Store {
  const { db, engine, location, changes, pool, checkpoints } = openDatabase(opts);
  const readCaches = createReadCaches({ changedElsewhere: () => changes.changedElsewhere() });
  changes.onChange(() => readCaches.invalidate());
  return storeView(db, engine, location, { readCaches, compiled: new Map(), changes, pool, checkpoints });
}

/** The store over `db` (the instance or one of its transactions), sharing `state`. */
function storeView(db: Kysely<Database>, engine: Engine, location: string, state: StoreState): Store {
  const store: Store = {
    engine,
    location,
    transaction: (work) =>
      db.isTransaction ? work(store) : db.transaction().execute((trx) => work(storeView(trx, engine, location, state))),
    migrate: () => migrateToLatest(db),
    destroy: async () => {
      await state.changes.close();
      await db.destroy();
    },
    [INTERNALS]: { db, state },
  };
  return store;
}
