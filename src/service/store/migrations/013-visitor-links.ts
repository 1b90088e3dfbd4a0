/**
 * Relinked visitor IDs (identification/relink.ts): one row per absorbed ID, naming the earlier
 * ID its storage was moved back to. Tokens of an absorbed ID resolve to the surviving one by
 * the primary key; the Server API finds the absorbed IDs of a surviving ID through the
 * (workspace, surviving) index, so a search by visitor also returns their events.
 *
 * Numbered 011, not 010: 010 is left to a PostgreSQL-only migration planned in parallel.
 */
import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('visitor_links')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('absorbed_id', 'text', (c) => c.notNull())
    .addColumn('surviving_id', 'text', (c) => c.notNull())
    .addColumn('linked_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('visitor_links_pk', ['workspace_id', 'absorbed_id'])
    .execute();
  await db.schema.createIndex('visitor_links_surviving').on('visitor_links').columns(['workspace_id', 'surviving_id']).execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('visitor_links').execute();
}
