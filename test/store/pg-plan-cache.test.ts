/**
 * PostgreSQL plans the store's statements for their values, named ones too
 * (pg-named-statements.ts): an identification locks the partitions of its last 24 hours, not
 * every partition that a long retention keeps. PostgreSQL's default would weigh a generic plan
 * from a named statement's sixth execution on; building it locks every partition and its
 * indexes, which with hundreds of weekly partitions made identifications fail with "out of
 * shared memory".
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kyselyOf, type Store } from '../../src/service/store/index.js';
import { readRecentActivity } from '../../src/service/store/recent-activity.js';
import { insertVisitor, loadIdentificationState } from '../../src/service/store/visitors.js';
import { emptyProfile } from '../../src/service/identification/profile.js';
import { addPastWeekPartitions } from '../helpers/past-partitions.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

const NOW = Date.UTC(2026, 0, 10, 12);
/** Past weeks added to the few partitions a new database has (ten years of retention keep about 520). */
const EXTRA_WEEKS = 100;

describe('identification on many partitions (postgres)', () => {
  let t: TestService;
  let store: Store;
  let partitions: number;

  beforeAll(async () => {
    t = await startTestService({ engine: 'postgres', clock: () => NOW, config: { retentionDays: 3650 } });
    store = t.service.ctx.store;
    await t.service.jobs.stop();
    partitions = await addPastWeekPartitions(kyselyOf(store), EXTRA_WEEKS);
    await insertVisitor(store, { workspaceId: t.workspaceId, visitorId: 'vis_a', now: NOW - 60_000, profile: emptyProfile(), keys: ['s:a', 'p:net'] });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('locks the partitions of the last 24 hours, however many the retention keeps, execution after execution', async () => {
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
      return rows[0]!.n;
    });
    // The visitors' tables, their indexes and a partition or two of events with theirs, not
    // one lock per partition.
    expect(locksHeld).toBeLessThan(EXTRA_WEEKS / 2);
  });
});
