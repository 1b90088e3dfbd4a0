/**
 * `visitor_keys` keyed by visitor: primary key (workspace_id, visitor_id, key) instead of
 * (workspace_id, key, visitor_id), and no `visitor_keys_visitor` index.
 *
 * A visit that writes keys writes them for one visitor: a signal that drifted, another network,
 * the daily refresh of all eight. Keyed by key, each row went into three B-trees at three
 * random places (the table, the lookup index, the visitor index), each page written whole to
 * SQLite's log at the commit; keyed by visitor, a visitor's keys sit together, so its rows share
 * one page of the table, and the visitor index (deleting one visitor's keys: stale keys, a
 * relink, a deletion) is the primary key's prefix. With the service benchmark's visits
 * (docs/performance.md, 2026-12-03): 1.1 pages fewer per identification in the log (17.1 ->
 * 15.9 committed one at a time, 9.4 -> 8.3 twenty at a time), the keys' insert about half.
 * Candidate retrieval keeps `visitor_keys_lookup` (workspace_id, key, last_seen_at), which holds
 * the visitor ID too. The upsert's conflict target names the same three columns, in any order.
 *
 * SQLite cannot change a WITHOUT ROWID table's key: the table is copied into a new one, in one
 * write transaction. All or nothing; another process migrating the same file waits for the
 * write lock, then finds the work done (it waits 5 s at most, sqlite-writer.ts: after a longer
 * copy its start fails, and its next start finds the migration recorded). A million keys (about
 * 125,000 visitors) took 2.7 s on a two-core machine (2026-12-03), and the copy needs the
 * table's size in free disk space meanwhile. PostgreSQL swaps the constraint in place, the table
 * locked while it builds the new key (1.8 s there).
 */
import { sql, type Kysely } from 'kysely';
import { isPostgres } from './engine.js';

const VISITOR_INDEX = 'visitor_keys_visitor';
const LOOKUP_INDEX = 'visitor_keys_lookup';
/** The primary key's columns, in order, each way. */
const KEY_COLUMNS = {
  'by visitor': ['workspace_id', 'visitor_id', 'key'],
  'by key': ['workspace_id', 'key', 'visitor_id'],
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
async function rekey(db: Kysely<any>, to: 'by visitor' | 'by key'): Promise<void> {
  const columns = sql.join(KEY_COLUMNS[to].map((c) => sql.id(c)));
  if (isPostgres(db)) {
    await sql`alter table visitor_keys drop constraint visitor_keys_pk`.execute(db);
    await sql`alter table visitor_keys add constraint visitor_keys_pk primary key (${columns})`.execute(db);
    if (to === 'by visitor') await db.schema.dropIndex(VISITOR_INDEX).ifExists().execute();
    else await db.schema.createIndex(VISITOR_INDEX).ifNotExists().on('visitor_keys').column('visitor_id').execute();
    return;
  }
  await db.transaction().execute(async (trx) => {
    // The visitor index exists exactly while the table is keyed by key (migration 002).
    const { rows } = await sql<{ n: number }>`select count(*) as n from sqlite_master where type = 'index' and name = ${VISITOR_INDEX}`.execute(trx);
    if ((rows[0]!.n > 0) === (to === 'by key')) return;
    await sql`create table visitor_keys_rekeyed (
        workspace_id text not null, key text not null, visitor_id text not null, last_seen_at bigint not null,
        constraint visitor_keys_pk primary key (${columns})
      ) without rowid`.execute(trx);
    // In the new key's order: each row goes at the end of the new table's B-tree.
    await sql`insert into visitor_keys_rekeyed (workspace_id, key, visitor_id, last_seen_at)
      select workspace_id, key, visitor_id, last_seen_at from visitor_keys
      order by ${columns}`.execute(trx);
    await sql`drop table visitor_keys`.execute(trx);
    await sql`alter table visitor_keys_rekeyed rename to visitor_keys`.execute(trx);
    await trx.schema.createIndex(LOOKUP_INDEX).on('visitor_keys').columns(['workspace_id', 'key', 'last_seen_at']).execute();
    if (to === 'by key') await trx.schema.createIndex(VISITOR_INDEX).on('visitor_keys').column('visitor_id').execute();
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function up(db: Kysely<any>): Promise<void> {
  await rekey(db, 'by visitor');
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function down(db: Kysely<any>): Promise<void> {
  await rekey(db, 'by key');
}
