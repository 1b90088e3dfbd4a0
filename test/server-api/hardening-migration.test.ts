/**
 * Migration 009 (item 13): events stored before it get their `ip_sort` key, so CIDR searches
 * find them too.
 */
import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { eventColumns } from '../../src/service/store/events.js';
import { ipSortKey } from '../../src/service/store/ip-sort.js';
import { kyselyOf } from '../../src/service/store/index.js';
import { migrationProvider } from '../../src/service/store/migrations/index.js';
import { freshStores } from '../helpers/fresh-stores.js';
import { ENGINES } from '../helpers/test-service.js';
import { makeEvent, T0 } from './fixtures.js';

describe.each(ENGINES)('migration 009-search-columns (%s)', (engine) => {
  const openFresh = freshStores();

  it('fills ip_sort of the events stored before it', async () => {
    const { store } = await openFresh(engine);
    const db = kyselyOf(store);
    const migrator = new Migrator({ db, provider: migrationProvider });
    expect((await migrator.migrateTo('005-covering-visitor-index')).error).toBeUndefined();
    await db.insertInto('workspaces').values({ id: 'ws_1', name: 'w', region: 'us', deletion_enabled: 0, created_at: T0 }).execute();
    // The environments table as migration 005 left it (later migrations add columns).
    await sql`INSERT INTO environments (id, workspace_id, name, created_at) VALUES ('ae_1', 'ws_1', 'e', ${T0})`.execute(db);
    const ips = ['203.0.113.7', '2001:db8::5', null];
    for (const ip of ips) {
      const { ip_sort: _omitted, ...before } = eventColumns(makeEvent(T0, 'vis', ip === null ? {} : { ip_address: ip }), { workspaceId: 'ws_1', environmentId: 'ae_1' });
      if (ip === null) before.ip_address = null;
      await db.insertInto('events').values(before).execute();
    }
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const rows = await db.selectFrom('events').select(['ip_address', 'ip_sort']).execute();
    expect(rows.map((r) => r.ip_sort).sort()).toEqual(ips.map((ip) => ipSortKey(ip)).sort());
    expect(rows.filter((r) => r.ip_sort !== null)).toHaveLength(2);
  });
});
