/**
 * Planner statistics. Without them SQLite answers a search by visitor (or linked id, URL, ...)
 * from the time index and scans the whole window; with them it picks the filter's index.
 *
 * - SQLite keeps them only when asked: `PRAGMA optimize` analyses the tables whose size changed
 *   a lot, and `analysis_limit` keeps each analysis to a sample so the single connection is
 *   never held for long.
 * - PostgreSQL keeps them itself with autovacuum. A server that runs with autovacuum off (some
 *   are set up so) would plan every statement on the sizes the tables had when last analysed,
 *   empty ones for a new deployment: there the service analyses its own tables (a sample of
 *   each; reads and writes go on meanwhile), and warns at start that vacuuming is then the
 *   operator's job.
 */
import { sql } from 'kysely';
import { internalsOf, type Store } from './handle.js';
import type { Database } from './schema.js';

/** Every table of the schema: a table added to Database and not here fails the type check. */
const TABLES = Object.keys({
  workspaces: 1,
  environments: 1,
  api_keys: 1,
  filtering_rules: 1,
  settings: 1,
  events: 1,
  visitors: 1,
  visitor_keys: 1,
  visitor_links: 1,
  visitor_deletions: 1,
  encryption_keys: 1,
  webhooks: 1,
  webhook_deliveries: 1,
  webhook_delivery_payloads: 1,
  webhook_attempts: 1,
} satisfies Record<keyof Database, 1>);

export async function refreshPlannerStatistics(store: Store): Promise<void> {
  const { db } = internalsOf(store);
  if (store.engine === 'postgres') {
    if (await postgresAutovacuumIsOn(store)) return;
    await sql`ANALYZE ${sql.join(TABLES.map((table) => sql.table(table)))}`.execute(db);
    return;
  }
  await sql`PRAGMA analysis_limit = 400`.execute(db);
  // 0x10002: consider every table, not only those this connection has queried.
  await sql`PRAGMA optimize = 0x10002`.execute(db);
}

/** Whether the PostgreSQL server runs autovacuum (true on SQLite: nothing to do there). */
export async function postgresAutovacuumIsOn(store: Store): Promise<boolean> {
  if (store.engine !== 'postgres') return true;
  const { rows } = await sql<{ on: boolean }>`select current_setting('autovacuum') = 'on' as on`.execute(internalsOf(store).db);
  return rows[0]?.on ?? true;
}
