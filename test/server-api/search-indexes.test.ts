/**
 * Search stays fast as data grows only if each filter is answered from its own index within
 * the time window. This asks each engine's planner, on a populated database with the
 * statistics the service maintains, which index it uses for the searches the API runs.
 */
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchQuery } from '../../src/service/store/event-search.js';
import { parseEventSearch } from '../../src/service/server-api/search-filter.js';
import { eventColumns, maintainEventPartitions } from '../../src/service/store/events.js';
import { kyselyOf } from '../../src/service/store/index.js';
import { ENGINES, startTestService, type TestService } from '../helpers/test-service.js';
import { DAY, makeEvent, manualClock, T0 } from './fixtures.js';

const EVENTS = 20_000;
const VISITORS = 2_000;

describe.each(ENGINES)('search indexes (%s)', (engine) => {
  let t: TestService;

  beforeAll(async () => {
    t = await startTestService({ engine, clock: manualClock().now });
    const db = kyselyOf(t.service.ctx.store);
    const ids = { workspaceId: t.workspaceId, environmentId: t.environmentId };
    // PostgreSQL: the partitions of those 23 days, as a service running then made them.
    for (let day = T0 - 30 * DAY; day < T0; day += 7 * DAY) await maintainEventPartitions(t.service.ctx.store, day);
    for (let n = 0; n < EVENTS; n += 500) {
      const rows = Array.from({ length: 500 }, (_, i) => {
        const k = n + i;
        return eventColumns(
          makeEvent(T0 - 30 * DAY + k * 100_000, `vis${k % VISITORS}`, {
            environment_id: t.environmentId,
            linked_id: `order-${k % 5000}`,
            ip_address: `10.${(k >> 8) & 255}.${k & 255}.1`,
            url: `https://shop.example/p/${k % 3000}`,
            vpn: k % 10 === 0,
          }),
          ids,
        );
      });
      await db.insertInto('events').values(rows).execute();
    }
    // The statistics a running service has: its own background job (SQLite) or autovacuum (PostgreSQL).
    if (engine === 'postgres') await sql`ANALYZE events`.execute(db);
    else await t.service.jobs.runOnce();
  });
  afterAll(async () => {
    await t?.close();
  });

  async function plan(query: string, absorbedVisitorIds?: string[]): Promise<string> {
    const db = kyselyOf(t.service.ctx.store);
    const search = { ...parseEventSearch(Object.fromEntries(new URLSearchParams(query)), T0), ...(absorbedVisitorIds ? { absorbedVisitorIds } : {}) };
    const compiled = searchQuery(t.service.ctx.store, t.workspaceId, search, search.limit + 1).compile();
    const explain = engine === 'sqlite' ? 'EXPLAIN QUERY PLAN ' : 'EXPLAIN ';
    const result = await db.executeQuery(CompiledQuery.raw(explain + compiled.sql, [...compiled.parameters]));
    return result.rows.map((r) => Object.values(r as object).join(' ')).join('\n');
  }

  it.each([
    ['visitor_id=vis7', 'events_workspace_visitor_time'],
    ['linked_id=order-42', 'events_workspace_linked_time'],
    ['ip_address=10.1.2.1', 'events_workspace_ip_time'],
    ['url=' + encodeURIComponent('https://shop.example/p/9'), 'events_workspace_url_time'],
    ['origin=' + encodeURIComponent('https://other.example'), 'events_workspace_origin_time'],
  ])('%s is answered from %s', async (query, index) => {
    expect(await plan(query)).toContain(index);
  });

  it('a search without a selective filter reads the time index of its window', async () => {
    // Over the stored days (the default 7-day window holds a few events only: a table scan is cheaper there).
    expect(await plan(`vpn=true&start=${T0 - 30 * DAY}&end=${T0 - 7 * DAY}`)).toMatch(/events_workspace_time|events_time/);
  });

  it('a search by a visitor with relinked IDs reads the visitor index once per ID, never the whole window', async () => {
    const text = await plan('visitor_id=vis7', ['vis8', 'vis9']);
    // The lines reading the events table (not the subqueries built on it).
    // PostgreSQL reads the weekly partitions of the window (events_p<week>) once per ID; an
    // empty partition (a week still to come) costs nothing and may be scanned as it is.
    const reads = text
      .split('\n')
      .filter((line) => /(SEARCH|SCAN) events USING|(Index|Index Only|Seq|Bitmap Heap) Scan.* on events(_p\d+)?\b/.test(line))
      .filter((line) => !line.includes('cost=0.00..0.00'));
    expect(reads).toHaveLength(3);
    for (const line of reads) expect(line, text).toContain('events_workspace_visitor_time');
  });
});
