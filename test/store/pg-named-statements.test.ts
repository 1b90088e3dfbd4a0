/**
 * On PostgreSQL the store's fixed statements (prepared-query.ts) run as named prepared
 * statements: the session keeps each, and running it again reuses it instead of parsing it anew.
 * Statements whose text varies stay unnamed (they would pile up in every session).
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { kyselyOf } from '../../src/service/store/index.js';
import { findSurvivingVisitorId } from '../../src/service/store/visitor-links.js';
import { freshStores } from '../helpers/fresh-stores.js';

describe('named statements (postgres)', () => {
  const openFresh = freshStores();

  it('prepares a fixed statement once per session, and leaves other texts unnamed', async () => {
    const { store } = await openFresh('postgres', { poolSize: 1 });
    await store.migrate();
    const db = kyselyOf(store);
    await db.insertInto('workspaces').values({ id: 'ws_x', name: 'x', region: 'us', deletion_enabled: 0, created_at: 1 }).execute();
    await db.insertInto('visitor_links').values({ workspace_id: 'ws_x', absorbed_id: 'vis_old', surviving_id: 'vis_new', linked_at: 1 }).execute();
    const prepared = async () => (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db)).rows.map((r) => r.statement);
    const before = await prepared();

    // A fixed statement, twice, with different values: prepared once, each answer its own.
    expect(await findSurvivingVisitorId(store, 'ws_x', 'vis_old')).toBe('vis_new');
    expect(await findSurvivingVisitorId(store, 'ws_x', 'vis_other')).toBeUndefined();
    // A statement built on the spot (its text could vary): not prepared.
    await db.selectFrom('workspaces').select('id').where('id', '=', 'ws_x').execute();

    const added = (await prepared()).filter((text) => !before.includes(text));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/from "visitor_links"/);
  });
});
