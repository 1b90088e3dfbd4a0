/**
 * On PostgreSQL a statement with parameters runs as a named prepared statement: the session
 * keeps it, and running the same text again reuses it instead of parsing it anew.
 */
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { kyselyOf, openStore, type Store } from '../../src/service/store/index.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-service.js';

describe('named statements (postgres)', () => {
  let testDb: TestDatabase | undefined;
  let store: Store | undefined;
  afterEach(async () => {
    await store?.destroy();
    await testDb?.drop();
  });

  it('prepares a text with parameters once per session, and runs DDL and plain texts unnamed', async () => {
    testDb = await createTestDatabase('postgres');
    store = openStore({ dataDir: '', databaseUrl: testDb.config.databaseUrl!, poolSize: 1 });
    await store.migrate();
    const db = kyselyOf(store);
    const lookup = (id: string) => db.selectFrom('workspaces').select('id').where('id', '=', id).execute();
    await db.connection().execute(async (conn) => {
      const prepared = async () => (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(conn)).rows.map((r) => r.statement);
      const before = await prepared();
      await conn.selectFrom('workspaces').select('id').where('id', '=', 'ws_a').execute();
      await conn.selectFrom('workspaces').select('id').where('id', '=', 'ws_b').execute();
      await sql`select count(*) from workspaces`.execute(conn);
      const added = (await prepared()).filter((s) => !before.includes(s));
      expect(added).toHaveLength(1);
      expect(added[0]).toMatch(/select "id" from "workspaces" where "id" = \$1/);
    });
    // Another statement with the same text still answers for its own values.
    await db.insertInto('workspaces').values({ id: 'ws_x', name: 'x', region: 'us', deletion_enabled: 0, created_at: 1 }).execute();
    expect(await lookup('ws_x')).toEqual([{ id: 'ws_x' }]);
    expect(await lookup('ws_y')).toEqual([]);
  });
});
