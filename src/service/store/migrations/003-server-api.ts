/**
 * Server API: the visitor-deletion schedule, and event indexes for the search filters that
 * the core indexes (time, visitor, linked id, IP) do not serve. Each index ends with the
 * timestamp so one range scan serves the filter together with the time window.
 */
import type { Kysely } from 'kysely';

const EVENT_INDEXES: [string, string[]][] = [
  ['events_workspace_environment_time', ['workspace_id', 'environment_id', 'timestamp']],
  ['events_workspace_url_time', ['workspace_id', 'url', 'timestamp']],
  ['events_workspace_origin_time', ['workspace_id', 'origin', 'timestamp']],
  // Retention purges by age across workspaces.
  ['events_time', ['timestamp']],
];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('visitor_deletions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('visitor_id', 'text', (c) => c.notNull())
    .addColumn('requested_at', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'bigint')
    .addColumn('deleted_events', 'integer')
    .execute();
  await db.schema
    .createIndex('visitor_deletions_workspace_time')
    .on('visitor_deletions')
    .columns(['workspace_id', 'requested_at'])
    .execute();
  await db.schema
    .createIndex('visitor_deletions_status_time')
    .on('visitor_deletions')
    .columns(['status', 'requested_at'])
    .execute();
  for (const [name, columns] of EVENT_INDEXES) {
    await db.schema.createIndex(name).on('events').columns(columns).execute();
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of EVENT_INDEXES) await db.schema.dropIndex(name).execute();
  await db.schema.dropTable('visitor_deletions').execute();
}
