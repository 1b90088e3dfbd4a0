/**
 * Fewer indexes on `events`: every event insert updates each of them. Kept: the primary key,
 * (workspace, time) and the (workspace, filter, time) indexes of the selective Server API
 * filters (visitor, linked id, IP, URL, origin). Dropped:
 * - (workspace, environment, time): a workspace has few environments, so that filter is no
 *   more selective than the time window; the (workspace, time) index serves it.
 * - (time): the retention purge now deletes per workspace through (workspace, time).
 */
import type { Kysely } from 'kysely';

const DROPPED: [string, string[]][] = [
  ['events_workspace_environment_time', ['workspace_id', 'environment_id', 'timestamp']],
  ['events_time', ['timestamp']],
];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function up(db: Kysely<any>): Promise<void> {
  for (const [name] of DROPPED) await db.schema.dropIndex(name).ifExists().execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function down(db: Kysely<any>): Promise<void> {
  for (const [name, columns] of DROPPED) await db.schema.createIndex(name).ifNotExists().on('events').columns(columns).execute();
}
