/**
 * PostgreSQL only (SQLite keeps its table): `events` becomes a table partitioned by RANGE on
 * `timestamp` (store/event-partitions.ts). The partition key must be part of every unique
 * constraint, so the primary key becomes (event_id, timestamp). Event ids are
 * `<timestamp>.<random>` (ids.ts `newEventId`, with the event's own time), so for events the
 * service writes this is as unique as event_id alone was, and a lookup by id names its one
 * partition through the time in the id. Nothing references events by key (webhook deliveries
 * keep the event id as plain text, with their own copy of the payload), so no foreign key has
 * to change.
 *
 * An existing table is not copied (that would hold the upgrade for as long as rewriting every
 * event and its indexes takes): it is renamed to `events_legacy`, gets the new primary key
 * index, and is attached as the partition of everything before the week after the migration's
 * (weeks are the partitions' span), its other indexes attached as they are. Rows stamped after that (clocks far ahead) move to the
 * new table first. The legacy partition is dropped once retention has passed its upper bound;
 * until then retention deletes its expired rows as before. The DEFAULT partition is made here,
 * the weekly partitions by the service at start (ensureEventPartitions).
 */
import { type Kysely, sql } from 'kysely';
import { isPostgres } from './engine.js';
import { createEventPartition, DEFAULT_PARTITION, LEGACY_PARTITION, PARTITION_SPAN_MS, partitionStart } from '../event-partitions.js';

/**
 * The indexes of the partitioned table: the time window, and each selective equality filter of
 * the search within it (event-search.ts). Migration 009's (workspace, time, ip_sort) is not
 * among them: it spares SQLite reading rows for a CIDR search, but PostgreSQL's search scan
 * reads the rows' filter columns from the heap anyway and plans the (workspace, time) index
 * for it (EXPLAIN), so there it only cost every insert one more index.
 */
const INDEXES: [string, string[]][] = [
  ['events_workspace_time', ['workspace_id', 'timestamp']],
  ['events_workspace_visitor_time', ['workspace_id', 'visitor_id', 'timestamp']],
  ['events_workspace_linked_time', ['workspace_id', 'linked_id', 'timestamp']],
  ['events_workspace_ip_time', ['workspace_id', 'ip_address', 'timestamp']],
  ['events_workspace_url_time', ['workspace_id', 'url', 'timestamp']],
  ['events_workspace_origin_time', ['workspace_id', 'origin', 'timestamp']],
];
/** Migration 009's index, dropped here and restored by down(). */
const TIME_IP_INDEX: [string, string[]] = ['events_workspace_time_ip', ['workspace_id', 'timestamp', 'ip_sort']];

/** The columns of `events` in the order migrations 001 and 009 made them (ip_sort last). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
function eventsTable(db: Kysely<any>, name: string) {
  return db.schema
    .createTable(name)
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment_id', 'text', (c) => c.notNull())
    .addColumn('visitor_id', 'text', (c) => c.notNull())
    .addColumn('timestamp', 'bigint', (c) => c.notNull())
    .addColumn('linked_id', 'text')
    .addColumn('ip_address', 'text')
    .addColumn('url', 'text')
    .addColumn('origin', 'text')
    .addColumn('suspect', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('bot', 'text')
    .addColumn('incognito', 'integer')
    .addColumn('vpn', 'integer')
    .addColumn('tampering', 'integer')
    .addColumn('virtual_machine', 'integer')
    .addColumn('developer_tools', 'integer')
    .addColumn('privacy_settings', 'integer')
    .addColumn('suspect_score', 'integer')
    .addColumn('sdk_platform', 'text')
    .addColumn('sdk_version', 'text')
    .addColumn('request_hash', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('ip_sort', 'text');
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  // The old table and its index names make way for the partitioned table's.
  await sql`alter table events rename to ${sql.id(LEGACY_PARTITION)}`.execute(db);
  await sql`alter table ${sql.id(LEGACY_PARTITION)} rename constraint events_pkey to events_pkey_legacy`.execute(db);
  const { rows: oldIndexes } = await sql<{ name: string }>`
    select indexname as name from pg_indexes
    where schemaname = current_schema() and tablename = ${LEGACY_PARTITION} and indexname <> 'events_pkey_legacy'`.execute(db);
  for (const { name } of oldIndexes) {
    if (name === TIME_IP_INDEX[0]) await sql`drop index ${sql.id(name)}`.execute(db);
    else await sql`alter index ${sql.id(name)} rename to ${sql.id(`${name}_legacy`)}`.execute(db);
  }

  await eventsTable(db, 'events')
    .addPrimaryKeyConstraint('events_pkey', ['event_id', 'timestamp'])
    .modifyEnd(sql`partition by range ("timestamp")`)
    .execute();
  for (const [name, columns] of INDEXES) await db.schema.createIndex(name).on('events').columns(columns).execute();
  await createEventPartition(db, DEFAULT_PARTITION, 'default', 'default');

  const { rows } = await sql<{ any: boolean }>`select exists (select 1 from ${sql.id(LEGACY_PARTITION)}) as any`.execute(db);
  if (!rows[0]?.any) {
    await sql`drop table ${sql.id(LEGACY_PARTITION)}`.execute(db);
    return;
  }
  const boundary = partitionStart(Date.now()) + PARTITION_SPAN_MS;
  // Events stamped after the boundary (a clock far ahead) go to the new table (its DEFAULT
  // partition until their week's partition is made, which takes them over).
  await sql`with moved as (delete from ${sql.id(LEGACY_PARTITION)} where "timestamp" >= ${boundary} returning *)
    insert into events select * from moved`.execute(db);
  await sql`alter table ${sql.id(LEGACY_PARTITION)} drop constraint events_pkey_legacy`.execute(db);
  await sql`alter table ${sql.id(LEGACY_PARTITION)} add constraint events_pkey_legacy primary key (event_id, "timestamp")`.execute(db);
  // Its other indexes match the parent's by definition and are attached, not rebuilt; ATTACH
  // scans the table once to check the bound.
  await sql`alter table events attach partition ${sql.id(LEGACY_PARTITION)} for values from (minvalue) to (${sql.lit(boundary)})`.execute(db);
}

/** Back to one plain table: every row is copied (slow on a large database, but a way back). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await eventsTable(db, 'events_009').addPrimaryKeyConstraint('events_009_pkey', ['event_id']).execute();
  await sql`insert into events_009 select * from events`.execute(db);
  await db.schema.dropTable('events').execute();
  await sql`alter table events_009 rename to events`.execute(db);
  await sql`alter table events rename constraint events_009_pkey to events_pkey`.execute(db);
  for (const [name, columns] of [...INDEXES, TIME_IP_INDEX]) await db.schema.createIndex(name).on('events').columns(columns).execute();
}
