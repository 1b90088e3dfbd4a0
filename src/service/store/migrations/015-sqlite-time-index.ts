/**
 * SQLite: drops `events_workspace_time (workspace_id, timestamp)`. Migration 009's
 * `events_workspace_time_ip (workspace_id, timestamp, ip_sort)` starts with the same columns in
 * the same order, so it serves every lookup and ordering the shorter index served (a time
 * window, newest first; retention's oldest first), and every event insert writes one B-tree
 * fewer. PostgreSQL keeps its (workspace, time) index: migration 012 dropped the other there.
 */
import type { Kysely } from 'kysely';
import { isPostgres } from './engine.js';

const NAME = 'events_workspace_time';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  await db.schema.dropIndex(NAME).ifExists().execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  await db.schema.createIndex(NAME).ifNotExists().on('events').columns(['workspace_id', 'timestamp']).execute();
}
