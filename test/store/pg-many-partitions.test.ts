/**
 * PostgreSQL with many weekly partitions of `events`, as a long retention keeps them: no
 * statement may plan or lock every partition (with hundreds, the locks of a few concurrent
 * statements fill PostgreSQL's lock table, and they fail with "out of shared memory").
 * - An identification's reads name the partitions of their last 24 hours
 *   (recent-partitions.ts): PostgreSQL keeps one plan for them that locks those partitions
 *   only. A named statement on the parent would get a plan for any values from its sixth
 *   execution on, and building it locks every partition and its indexes.
 * - A visitor's history has no time bound of its own: it is read window by window, newest
 *   first (event-partitions.ts timeWindows).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kyselyOf, type Store } from '../../src/service/store/index.js';
import { PARTITIONS_PER_WINDOW } from '../../src/service/store/event-partitions.js';
import { insertEvent, scanVisitorEvents } from '../../src/service/store/events.js';
import { readRecentActivity } from '../../src/service/store/recent-activity.js';
import { insertVisitor, loadIdentificationState } from '../../src/service/store/visitors.js';
import { emptyProfile } from '../../src/service/identification/profile.js';
import { addPastWeekPartitions } from '../helpers/past-partitions.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { makeEvent } from '../server-api/fixtures.js';
import { statementsDuring } from '../helpers/statements-during.js';

const NOW = Date.UTC(2026, 0, 10, 12);
const WEEK = 7 * 24 * 3600 * 1000;
/** The weeks before NOW of the history's events (two in week 30), across several windows. */
const HISTORY_WEEKS = [0, 5, 30, 30, 31, 60, 99];
/** Past weeks added to the few partitions a new database has (ten years of retention keep about 520). */
const EXTRA_WEEKS = 100;

describe('many weekly partitions (postgres)', () => {
  let t: TestService;
  let store: Store;
  let partitions: number;

  beforeAll(async () => {
    t = await startTestService({ engine: 'postgres', clock: () => NOW, config: { retentionDays: 3650 } });
    store = t.service.ctx.store;
    await t.service.jobs.stop();
    partitions = await addPastWeekPartitions(kyselyOf(store), EXTRA_WEEKS);
    await insertVisitor(store, { workspaceId: t.workspaceId, visitorId: 'vis_a', now: NOW - 60_000, profile: emptyProfile(), keys: ['s:a', 'p:net'] });
    for (const [i, weeks] of HISTORY_WEEKS.entries()) {
      await insertEvent(store, makeEvent(NOW - weeks * WEEK - i * 1000, 'vis_h'), { workspaceId: t.workspaceId, environmentId: t.environmentId });
    }
    // Another visitor's event among them.
    await insertEvent(store, makeEvent(NOW - 30 * WEEK, 'vis_other'), { workspaceId: t.workspaceId, environmentId: t.environmentId });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('an identification locks the partitions of its last 24 hours, however many the retention keeps, execution after execution', async () => {
    expect(partitions).toBeGreaterThan(EXTRA_WEEKS);
    const activity = { ip: '203.0.113.7', linkedId: 'order-1', requestHash: 'h', replaySince: NOW - 60_000, now: NOW };
    const locksHeld = await store.transaction(async (trx) => {
      // More executions than PostgreSQL's five before it would weigh a generic plan; a
      // transaction keeps every lock it took until it ends.
      for (let i = 0; i < 8; i++) {
        const withToken = await loadIdentificationState(trx, { workspaceId: t.workspaceId, tokenVisitorId: 'vis_a', keys: ['s:a', 'p:net'], activity });
        expect(withToken.tokenVisitor?.visitorId).toBe('vis_a');
        const withoutToken = await loadIdentificationState(trx, { workspaceId: t.workspaceId, keys: ['s:a', 'p:net'], activity });
        expect(withoutToken.candidates.map((c) => c.visitorId)).toEqual(['vis_a']);
        await readRecentActivity(trx, { workspaceId: t.workspaceId, visitorId: 'vis_a', ...activity });
      }
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_locks where pid = pg_backend_pid()`.execute(kyselyOf(trx));
      // The reads name the partitions of their window, so PostgreSQL keeps a plan for them.
      const kept = await sql<{ statement: string }>`select statement from pg_prepared_statements where generic_plans > 0`.execute(kyselyOf(trx));
      expect(kept.rows.filter((r) => /"events_p\d{8}"/.test(r.statement))).toHaveLength(3);
      return rows[0]!.n;
    });
    // The visitors' tables, their indexes and a partition or two of events with theirs, not
    // one lock per partition.
    expect(locksHeld).toBeLessThan(EXTRA_WEEKS / 2);
  });

  const scan = (opts: { limit: number; before?: number; after?: { timestamp: number; eventId: string } }) =>
    scanVisitorEvents(store, { workspaceId: t.workspaceId, visitorId: 'vis_h', ...opts });

  it('a visitor history reads every event, newest first, across windows, with the page limits and points of one scan', async () => {
    const all = await scan({ limit: 100 });
    expect(all.map((r) => r.timestamp)).toEqual(HISTORY_WEEKS.map((weeks, i) => NOW - weeks * WEEK - i * 1000));
    expect(await scan({ limit: 3 })).toEqual(all.slice(0, 3));
    // After the third event: the two next, from another window.
    const third = all[2]!;
    expect(await scan({ limit: 2, after: { timestamp: third.timestamp, eventId: third.event_id } })).toEqual(all.slice(3, 5));
    expect(await scan({ limit: 100, before: all[4]!.timestamp })).toEqual(all.slice(5));
    expect(await scan({ limit: 100, before: all.at(-1)!.timestamp })).toEqual([]);
  });

  it('a visitor history sends statements that each reach at most a window of partitions', async () => {
    const statements = await statementsDuring(() => scan({ limit: 100 }));
    const onEvents = statements.filter((s) => /from "events"/.test(s.text));
    const db = kyselyOf(store);
    for (const statement of onEvents) {
      // The plan for the statement's values names the partitions it reads (and locks).
      const { rows } = await db.executeQuery<{ 'QUERY PLAN': unknown }>({ sql: `explain (format json) ${statement.text}`, parameters: statement.values, query: undefined as never, queryId: undefined as never });
      const partitions = new Set(JSON.stringify(rows[0]!['QUERY PLAN']).match(/events_p\d{8}/g));
      expect(partitions.size).toBeLessThanOrEqual(PARTITIONS_PER_WINDOW);
    }
    // The history reaches back through every window: one statement each.
    expect(onEvents.length).toBeGreaterThan(EXTRA_WEEKS / PARTITIONS_PER_WINDOW);
  });
});
