/**
 * PostgreSQL: the partitions holding a recent range are named from a list kept for a while
 * (recent-partitions.ts): no catalog read per identification, a range the kept list does not
 * cover is listed again (at most once a second), and a range without partitions of its own
 * gets none (the read then names the parent).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PARTITION_SPAN_MS, partitionName, partitionStart } from '../../src/service/store/event-partitions.js';
import { kyselyOf, type Store } from '../../src/service/store/index.js';
import { partitionsHolding } from '../../src/service/store/recent-partitions.js';
import { statementsDuring } from '../helpers/statements-during.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

const NOW = Date.UTC(2026, 0, 10, 12);
const DAY = 24 * 3600 * 1000;

describe('partitions holding a recent range (postgres)', () => {
  let t: TestService;
  let store: Store;

  beforeAll(async () => {
    t = await startTestService({ engine: 'postgres', clock: () => NOW });
    store = t.service.ctx.store;
    await t.service.jobs.stop();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('names the week of the last 24 hours from the kept list, and lists again for a range it does not cover', async () => {
    const week = partitionStart(NOW);
    expect(await partitionsHolding(store, NOW - DAY, NOW + 3600_000)).toEqual([partitionName(week)]);
    // Kept: no statement the second time.
    const again = await statementsDuring(async () => {
      expect(await partitionsHolding(store, NOW - DAY, NOW + 3600_000)).toEqual([partitionName(week)]);
    });
    expect(again).toEqual([]);

    // A week made after the list was kept (as the hourly job does): found by listing again,
    // once the last listing is over a second old.
    const later = week + 10 * PARTITION_SPAN_MS;
    await sql`create table ${sql.id(partitionName(later))} partition of events for values from (${sql.lit(later)}) to (${sql.lit(later + PARTITION_SPAN_MS)})`.execute(kyselyOf(store));
    await sleep(1100);
    const listed = await statementsDuring(async () => {
      expect(await partitionsHolding(store, later + DAY, later + 2 * DAY)).toEqual([partitionName(later)]);
    });
    expect(listed).toHaveLength(1);

    // Far ahead, no partition: none named, and not listed again within the second.
    const none = await statementsDuring(async () => {
      expect(await partitionsHolding(store, later + 20 * PARTITION_SPAN_MS, later + 20 * PARTITION_SPAN_MS + DAY)).toBeNull();
    });
    expect(none).toEqual([]);
  });
});
