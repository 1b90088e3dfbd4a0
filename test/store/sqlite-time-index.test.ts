/**
 * Migration 015 drops SQLite's (workspace, time) index of events: the (workspace, time, ip_sort)
 * index serves its lookups, newest and oldest first, and down() brings it back.
 */
import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { kyselyOf } from '../../src/service/store/index.js';
import { migrationProvider } from '../../src/service/store/migrations/index.js';
import { freshStores } from '../helpers/fresh-stores.js';

describe('migration 015-sqlite-time-index (sqlite)', () => {
  const openFresh = freshStores();

  it('leaves the time window to the (workspace, time, ip_sort) index, and down() restores the old one', async () => {
    const { store } = await openFresh('sqlite');
    const db = kyselyOf(store);
    const migrator = new Migrator({ db, provider: migrationProvider });
    expect((await migrator.migrateTo('014-delivery-payloads')).error).toBeUndefined();
    const indexes = async () =>
      (await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'events' and name like 'events_workspace_time%'`.execute(db)).rows
        .map((r) => r.name)
        .sort();
    expect(await indexes()).toEqual(['events_workspace_time', 'events_workspace_time_ip']);
    expect((await migrator.migrateTo('015-sqlite-time-index')).error).toBeUndefined();
    expect(await indexes()).toEqual(['events_workspace_time_ip']);

    const plan = async (order: 'asc' | 'desc') =>
      (await sql<{ detail: string }>`explain query plan select event_id from events where workspace_id = 'ws_1' and timestamp >= 1 and timestamp < 2 order by timestamp ${sql.raw(order)} limit 10`.execute(db)).rows
        .map((r) => r.detail)
        .join('\n');
    for (const order of ['asc', 'desc'] as const) {
      const detail = await plan(order);
      expect(detail).toMatch(/USING (COVERING )?INDEX events_workspace_time_ip \(workspace_id=\? AND timestamp>\? AND timestamp<\?\)/);
      expect(detail).not.toMatch(/TEMP B-TREE/);
    }

    expect((await migrator.migrateTo('014-delivery-payloads')).error).toBeUndefined();
    expect(await indexes()).toEqual(['events_workspace_time', 'events_workspace_time_ip']);
  });
});
