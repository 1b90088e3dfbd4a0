/** Identification tables: visitors and their blocking keys (see schema.ts). */
import { type Kysely, SqliteAdapter, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('visitors')
    .addColumn('visitor_id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('first_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('visit_count', 'integer', (c) => c.notNull())
    .addColumn('last_token_at', 'bigint')
    .addColumn('profile', 'text', (c) => c.notNull())
    .execute();

  // On SQLite the key table is its primary-key B-tree (WITHOUT ROWID): one structure fewer to
  // write on every new visitor.
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .createTable('visitor_keys')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('visitor_id', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('visitor_keys_pk', ['workspace_id', 'key', 'visitor_id'])
    .$call((builder) => (sqlite ? builder.modifyEnd(sql`without rowid`) : builder))
    .execute();
  // Candidate retrieval reads the most recently seen visitors of one key, bounded by a LIMIT.
  await db.schema
    .createIndex('visitor_keys_lookup')
    .on('visitor_keys')
    .columns(['workspace_id', 'key', 'last_seen_at'])
    .execute();
  // Updating and deleting one visitor's keys.
  await db.schema.createIndex('visitor_keys_visitor').on('visitor_keys').columns(['visitor_id']).execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('visitor_keys').execute();
  await db.schema.dropTable('visitors').execute();
}
