/**
 * Planner statistics (store/statistics.ts): the service's job keeps them on SQLite, and on a
 * PostgreSQL server that runs without autovacuum (this machine's runs so), where nothing else
 * would.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { kyselyOf } from '../../src/service/store/index.js';
import { setSetting } from '../../src/service/store/settings.js';
import { postgresAutovacuumIsOn, refreshPlannerStatistics } from '../../src/service/store/statistics.js';
import { freshStores } from '../helpers/fresh-stores.js';

describe('planner statistics on PostgreSQL', () => {
  const open = freshStores();

  it('analyses the service tables when autovacuum is off, and leaves them to autovacuum when it is on', async () => {
    const { store } = await open('postgres');
    await store.migrate();
    for (let i = 0; i < 300; i++) await setSetting(store, `bench-${i}`, 'x');
    const db = kyselyOf(store);
    const analysed = async () => {
      const { rows } = await sql<{ analysed: boolean; tuples: number }>`
        select s.last_analyze is not null as analysed, c.reltuples as tuples
        from pg_stat_user_tables s join pg_class c on c.oid = s.relid
        where s.relname = 'settings' and s.schemaname = current_schema()`.execute(db);
      return rows[0]!;
    };
    expect((await analysed()).analysed).toBe(false);

    const autovacuum = await postgresAutovacuumIsOn(store);
    const { rows } = await sql<{ setting: string }>`select current_setting('autovacuum') as setting`.execute(db);
    expect(autovacuum).toBe(rows[0]!.setting === 'on');

    await refreshPlannerStatistics(store);
    const after = await analysed();
    if (autovacuum) {
      expect(after.analysed).toBe(false);
    } else {
      expect(after.analysed).toBe(true);
      expect(Number(after.tuples)).toBeGreaterThanOrEqual(300);
    }
  });
});
