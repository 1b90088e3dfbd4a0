/**
 * SQLite: the (workspace, visitor, time) index of `events` also holds the IP, linked_id and
 * request hash, the columns that every identification counts over the visitor's recent events
 * (recent-activity.ts). That scan then reads only the index, not one table page per event (a
 * stored event is a few KiB, so each has a page of its own). Searches by visitor use the index
 * as before. PostgreSQL keeps the narrow index: its index-only scans need pages marked
 * all-visible by vacuum, which the newest events are not, so the wider index would cost every
 * insert without sparing the reads.
 */
import { type Kysely, SqliteAdapter } from 'kysely';

const NAME = 'events_workspace_visitor_time';
const NARROW = ['workspace_id', 'visitor_id', 'timestamp'];
const COVERING = [...NARROW, 'ip_address', 'linked_id', 'request_hash'];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
async function rebuild(db: Kysely<any>, columns: string[]): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  await db.schema.dropIndex(NAME).execute();
  await db.schema.createIndex(NAME).on('events').columns(columns).execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function up(db: Kysely<any>): Promise<void> {
  await rebuild(db, COVERING);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function down(db: Kysely<any>): Promise<void> {
  await rebuild(db, NARROW);
}
