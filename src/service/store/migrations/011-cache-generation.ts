/**
 * SQLite: `cache_generation`, one row whose counter every write to a table the read caches
 * hold (read-cache.ts) increments, by triggers, in the writing transaction, whoever writes (this
 * service, another worker, the CLI, an sqlite3 shell). The change feed (change-feed.ts) reads it
 * when `PRAGMA data_version` says another connection committed something, and drops the caches
 * only when the counter moved: with several workers on one file, the others' commits are
 * mostly events and visits, which must not empty every cache on every request.
 *
 * PostgreSQL announces changes with NOTIFY instead and gets nothing here. A later migration that
 * rebuilds one of these tables must create its triggers again.
 */
import { type Kysely, SqliteAdapter, sql } from 'kysely';

export const CACHE_GENERATION_TABLE = 'cache_generation';
/** Every table a read cache reads (store/*: readCaches.get), and environments, which keys and rules belong to. */
export const CACHED_TABLES = ['api_keys', 'workspaces', 'environments', 'filtering_rules', 'encryption_keys', 'webhooks'];
const OPERATIONS = ['insert', 'update', 'delete'];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  await db.schema
    .createTable(CACHE_GENERATION_TABLE)
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('generation', 'integer', (c) => c.notNull())
    .execute();
  await db.insertInto(CACHE_GENERATION_TABLE).values({ id: 1, generation: 0 }).execute();
  for (const table of CACHED_TABLES) {
    for (const operation of OPERATIONS) {
      await sql
        .raw(
          `create trigger ${table}_${operation}_cache_generation after ${operation} on ${table} ` +
            `begin update ${CACHE_GENERATION_TABLE} set generation = generation + 1 where id = 1; end`,
        )
        .execute(db);
    }
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  for (const table of CACHED_TABLES) {
    for (const operation of OPERATIONS) await sql.raw(`drop trigger if exists ${table}_${operation}_cache_generation`).execute(db);
  }
  await db.schema.dropTable(CACHE_GENERATION_TABLE).ifExists().execute();
}
