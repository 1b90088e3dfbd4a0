/**
 * Migration 017 keys `visitor_keys` by visitor, on both engines: every row survives the change
 * (and its reversal), the visitor index is gone because the primary key's prefix serves it, and
 * the reads and writes of identification still find their rows and their indexes.
 */
import { Migrator, sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { findCandidates } from '../../src/service/store/visitors.js';
import { kyselyOf } from '../../src/service/store/index.js';
import { migrationProvider } from '../../src/service/store/migrations/index.js';
import * as visitorKeysByVisitor from '../../src/service/store/migrations/017-visitor-keys-by-visitor.js';
import type { Database, VisitorKeysTable } from '../../src/service/store/schema.js';
import { freshStores } from '../helpers/fresh-stores.js';
import { ENGINES, type Engine } from '../helpers/test-service.js';

const BEFORE = '016-lz4-event-payloads';
const T0 = 1_700_000_000_000;

/** Three visitors with overlapping keys, in two workspaces. */
function keyRows(): VisitorKeysTable[] {
  const rows: VisitorKeysTable[] = [];
  for (const [workspace, visitor, keys] of [
    ['ws_1', 'visitorA', ['d:1', 'f:1', 'p:10.0.0']],
    ['ws_1', 'visitorB', ['d:1', 'f:2', 'p:10.0.0']],
    ['ws_1', 'visitorC', ['d:1', 'f:2']],
    ['ws_2', 'visitorA', ['d:1']],
  ] as const) {
    keys.forEach((key, i) => rows.push({ workspace_id: workspace, key, visitor_id: visitor, last_seen_at: T0 + rows.length * 1000 + i }));
  }
  return rows;
}

const allRows = (db: Kysely<Database>) => db.selectFrom('visitor_keys').selectAll().orderBy('workspace_id').orderBy('visitor_id').orderBy('key').execute();

/** The columns of the table's primary key, in order. */
async function primaryKey(db: Kysely<Database>, engine: Engine): Promise<string[]> {
  if (engine === 'sqlite') {
    const { rows } = await sql<{ name: string; pk: number }>`select name, pk from pragma_table_info('visitor_keys') where pk > 0 order by pk`.execute(db);
    return rows.map((r) => r.name);
  }
  const { rows } = await sql<{ name: string }>`
    select a.attname as name from pg_index i
    join lateral unnest(i.indkey) with ordinality as k(attnum, position) on true
    join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
    where i.indrelid = 'visitor_keys'::regclass and i.indisprimary order by k.position`.execute(db);
  return rows.map((r) => r.name);
}

async function indexes(db: Kysely<Database>, engine: Engine): Promise<string[]> {
  const { rows } =
    engine === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'visitor_keys' and name not like 'sqlite_%'`.execute(db)
      : await sql<{ name: string }>`select indexname as name from pg_indexes where tablename = 'visitor_keys' and indexname <> 'visitor_keys_pk'`.execute(db);
  return rows.map((r) => r.name).sort();
}

describe.each(ENGINES)('migration 017-visitor-keys-by-visitor (%s)', (engine) => {
  const openFresh = freshStores();

  it('keys the table by visitor without losing a row, and down() restores the key order and the visitor index', async () => {
    const { store } = await openFresh(engine);
    const db = kyselyOf(store);
    const migrator = new Migrator({ db, provider: migrationProvider });
    expect((await migrator.migrateTo(BEFORE)).error).toBeUndefined();
    await db.insertInto('visitor_keys').values(keyRows()).execute();
    const before = await allRows(db);
    expect(before).toHaveLength(keyRows().length);
    expect(await primaryKey(db, engine)).toEqual(['workspace_id', 'key', 'visitor_id']);
    expect(await indexes(db, engine)).toEqual(['visitor_keys_lookup', 'visitor_keys_visitor']);

    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    expect(await primaryKey(db, engine)).toEqual(['workspace_id', 'visitor_id', 'key']);
    expect(await indexes(db, engine)).toEqual(['visitor_keys_lookup']);
    expect(await allRows(db)).toEqual(before);

    // Candidate retrieval: each key's newest visitors and the visitors per key, as before.
    const found = await findCandidates(store, 'ws_1', ['d:1', 'f:2', 'p:10.0.0']);
    expect(found.visitorsPerKey).toEqual({ 'd:1': 3, 'f:2': 2, 'p:10.0.0': 2 });
    expect(found.networkVisitors.sort()).toEqual(['visitorA', 'visitorB']);
    // Unique on the same three columns: a second row for (workspace, key, visitor) is refused.
    await expect(db.insertInto('visitor_keys').values({ workspace_id: 'ws_1', key: 'd:1', visitor_id: 'visitorA', last_seen_at: T0 }).execute()).rejects.toThrow(
      /unique|duplicate/i,
    );

    expect((await migrator.migrateTo(BEFORE)).error).toBeUndefined();
    expect(await primaryKey(db, engine)).toEqual(['workspace_id', 'key', 'visitor_id']);
    expect(await indexes(db, engine)).toEqual(['visitor_keys_lookup', 'visitor_keys_visitor']);
    expect(await allRows(db)).toEqual(before);
  });
});

// SQLite's plans and its guarded copy; PostgreSQL swaps the key inside the migrator's transaction and lock.
describe('migration 017-visitor-keys-by-visitor (sqlite)', () => {
  const openFresh = freshStores();
  const engine = 'sqlite';

  it('reads a visitor\'s keys through the primary key and a key\'s visitors through the lookup index', async () => {
    const { store } = await openFresh(engine);
    await store.migrate();
    const db = kyselyOf(store);
    const plan = async (query: string) =>
      (await sql<{ detail: string }>`explain query plan ${sql.raw(query)}`.execute(db)).rows.map((r) => r.detail).join('\n');
    expect(await plan("delete from visitor_keys where visitor_id = 'v' and workspace_id = 'w'")).toMatch(/USING PRIMARY KEY \(workspace_id=\? AND visitor_id=\?\)/);
    expect(await plan("select key, visitor_id from visitor_keys where workspace_id = 'w' and key = 'k' order by last_seen_at desc limit 8")).toMatch(
      /USING COVERING INDEX visitor_keys_lookup \(workspace_id=\? AND key=\?\)/,
    );
  });

  it('finds its work done when another process ran it first', async () => {
    const { store } = await openFresh(engine);
    await store.migrate();
    const db = kyselyOf(store);
    await db.insertInto('visitor_keys').values(keyRows()).execute();
    const before = await allRows(db);
    // What a second process's migration runs after the first one's commit, before it saw the migration recorded.
    await visitorKeysByVisitor.up(db);
    expect(await primaryKey(db, engine)).toEqual(['workspace_id', 'visitor_id', 'key']);
    expect(await allRows(db)).toEqual(before);
  });
});
