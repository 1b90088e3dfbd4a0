/**
 * PostgreSQL's partitioned events (migration 010, store/event-partitions.ts) on a real server:
 * the partitions a start makes, where events land, retention dropping whole weeks and deleting
 * rows only where a week straddles the cutoff, several processes at once, and the migration of
 * a database that already holds events.
 */
import { Migrator, sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { purgeExpiredEvents } from '../../src/service/jobs/retention.js';
import {
  DEFAULT_PARTITION,
  LEGACY_PARTITION,
  listEventPartitions,
  PARTITION_SPAN_MS,
  PARTITIONS_AHEAD,
  partitionName,
  partitionStart,
} from '../../src/service/store/event-partitions.js';
import { countEvents, eventColumns, getEventPayload, insertEvent, maintainEventPartitions } from '../../src/service/store/events.js';
import { kyselyOf, openStore, type Store } from '../../src/service/store/index.js';
import { migrationProvider } from '../../src/service/store/migrations/index.js';
import type { Database } from '../../src/service/store/schema.js';
import { createWebhook } from '../../src/service/store/webhooks.js';
import { createWorkspace, updateWorkspaceSettings } from '../../src/service/store/workspaces.js';
import { freshStores } from '../helpers/fresh-stores.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { DAY, makeEvent, manualClock, T0 } from '../server-api/fixtures.js';

const HOUR = 3600 * 1000;

/** The partition each event is stored in, by event id. */
async function partitionsOf(db: Kysely<Database>): Promise<Record<string, string>> {
  const { rows } = await sql<{ event_id: string; partition: string }>`select event_id, tableoid::regclass::text as partition from events`.execute(db);
  return Object.fromEntries(rows.map((r) => [r.event_id, r.partition]));
}

const names = async (db: Kysely<Database>) => (await listEventPartitions(db)).map((p) => p.name);

describe('partitioned events (postgres)', () => {
  let t: TestService | undefined;
  const clock = manualClock();
  afterEach(async () => {
    await t?.close();
    t = undefined;
    clock.set(T0);
  });
  const start = async (config = {}) => {
    t = await startTestService({ engine: 'postgres', clock: clock.now, config });
    return { t, store: t.service.ctx.store, db: kyselyOf(t.service.ctx.store), ids: { workspaceId: t.workspaceId, environmentId: t.environmentId } };
  };

  it("a start makes the DEFAULT partition and this week's and the next weeks', each with the parent's indexes", async () => {
    const { db } = await start();
    // T0 is Thursday 2026-01-15: its week starts on Monday the 12th.
    expect(partitionStart(T0)).toBe(Date.UTC(2026, 0, 12));
    const weeks = Array.from({ length: PARTITIONS_AHEAD + 1 }, (_, i) => partitionName(partitionStart(T0) + i * PARTITION_SPAN_MS));
    expect(weeks).toEqual(['events_p20260112', 'events_p20260119', 'events_p20260126']);
    expect(await names(db)).toEqual(expect.arrayContaining([DEFAULT_PARTITION, ...weeks]));
    const partitions = await listEventPartitions(db);
    expect(partitions.find((p) => p.name === 'events_p20260112')).toEqual({
      name: 'events_p20260112',
      isDefault: false,
      from: Date.UTC(2026, 0, 12),
      to: Date.UTC(2026, 0, 19),
    });
    const indexes = async (table: string) =>
      (await sql<{ name: string }>`select indexname as name from pg_indexes where tablename = ${table} order by 1`.execute(db)).rows.map((r) => r.name);
    const parent = await indexes('events');
    expect(parent).toContain('events_pkey');
    expect(parent).toHaveLength(7);
    expect(await indexes('events_p20260112')).toEqual(parent.map((name) => `${name}_p20260112`).sort());
    expect(await indexes(DEFAULT_PARTITION)).toEqual(parent.map((name) => `${name}_default`).sort());
    // Running the upkeep again changes nothing.
    expect(await maintainEventPartitions(t!.service.ctx.store, T0)).toEqual([]);
  });

  it('an event goes to its week; one outside the weeks made goes to DEFAULT, and moves to its week once that is made', async () => {
    const { store, db, ids } = await start();
    const today = makeEvent(T0, 'v-today');
    const old = makeEvent(T0 - 10 * DAY, 'v-old');
    const ahead = makeEvent(T0 + 20 * DAY, 'v-ahead');
    for (const e of [today, old, ahead]) await insertEvent(store, e, ids);
    expect(await partitionsOf(db)).toEqual({
      [today.event_id]: 'events_p20260112',
      [old.event_id]: DEFAULT_PARTITION,
      [ahead.event_id]: DEFAULT_PARTITION,
    });
    // Twenty days later the upkeep makes that week's partition (from Monday 2 February), which
    // takes the event over.
    clock.advance(20 * DAY);
    expect(await maintainEventPartitions(store, clock.now())).toContain('events_p20260202');
    expect((await partitionsOf(db))[ahead.event_id]).toBe('events_p20260202');
    for (const e of [today, old, ahead]) {
      expect(JSON.parse((await getEventPayload(store, ids.workspaceId, e.event_id))!).identification.visitor_id).toBe(e.identification!.visitor_id);
    }
    // The primary key (event_id, timestamp) still refuses an event stored twice.
    await expect(insertEvent(store, today, ids)).rejects.toThrow(/duplicate key/);
  });

  it('making the partition of a week DEFAULT holds events of, while more arrive, fails no insert', async () => {
    const { store, db, ids } = await start();
    // Beyond the weeks made ahead: a service that was down that long stored them in DEFAULT.
    const week = partitionStart(T0) + 5 * PARTITION_SPAN_MS;
    const early = makeEvent(week + HOUR, 'early');
    await insertEvent(store, early, ids);
    let streaming = true;
    const stored: string[] = [];
    const failures: unknown[] = [];
    const stream = (async () => {
      for (let i = 0; streaming; i++) {
        const event = makeEvent(week + 2 * HOUR + i, 'stream');
        try {
          await insertEvent(store, event, ids);
          stored.push(event.event_id);
        } catch (err) {
          failures.push(err);
        }
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await maintainEventPartitions(store, week)).toContain(partitionName(week));
    await new Promise((resolve) => setTimeout(resolve, 100));
    streaming = false;
    await stream;
    expect(failures).toEqual([]);
    expect(stored.length).toBeGreaterThan(2);
    const where = await partitionsOf(db);
    for (const id of [early.event_id, ...stored]) expect(where[id]).toBe(partitionName(week));
  });

  it('retention drops the weeks entirely past the cutoff and deletes rows only where the cutoff falls', async () => {
    const { store, db, ids } = await start({ retentionDays: 30 });
    // Partitions for the weeks before the cutoff (T0 - 30 days = Tuesday 2025-12-16 12:00), as
    // a service running then would have made them: from Monday 1, 8 and 15 December.
    await maintainEventPartitions(store, T0 - 40 * DAY);
    const cutoff = T0 - 30 * DAY;
    const events = {
      dropped1: makeEvent(T0 - 40 * DAY, 'v'),
      dropped2: makeEvent(cutoff - 37 * HOUR, 'v'), // Sunday 2025-12-14 23:00: the last whole week before the cutoff
      boundaryOld: makeEvent(cutoff - HOUR, 'v'),
      boundaryKept: makeEvent(cutoff + HOUR, 'v'),
      ancient: makeEvent(T0 - 400 * DAY, 'v'),
      recent: makeEvent(T0, 'v'),
    };
    // Each event with a webhook delivery: deliveries have no foreign key to the partitioned
    // events, and must go with them whether their week is dropped or their rows deleted.
    const webhook = await createWebhook(store, { workspaceId: ids.workspaceId, environmentId: null, url: 'https://example.com/hook', now: T0 });
    for (const e of Object.values(events)) await insertEvent(store, e, ids, { deliveries: [{ webhookId: webhook.id, eventId: e.event_id, payload: '{}' }] });
    const where = await partitionsOf(db);
    expect(where[events.dropped1.event_id]).toBe('events_p20251201');
    expect(where[events.dropped2.event_id]).toBe('events_p20251208');
    expect(where[events.boundaryOld.event_id]).toBe('events_p20251215');
    expect(where[events.ancient.event_id]).toBe(DEFAULT_PARTITION);

    expect(await purgeExpiredEvents(store, T0, 30)).toEqual({ events: 4, deliveries: 4 });
    const deliveries = await db.selectFrom('webhook_deliveries').select('event_id').execute();
    expect(deliveries.map((d) => d.event_id).sort()).toEqual([events.boundaryKept.event_id, events.recent.event_id].sort());
    const left = await names(db);
    expect(left).not.toContain('events_p20251201');
    expect(left).not.toContain('events_p20251208');
    expect(left).toContain('events_p20251215');
    expect(left).toContain(DEFAULT_PARTITION);
    expect(Object.keys(await partitionsOf(db)).sort()).toEqual([events.boundaryKept.event_id, events.recent.event_id].sort());
    // Nothing more to do on the next pass.
    expect(await purgeExpiredEvents(store, T0, 30)).toEqual({ events: 0, deliveries: 0 });
  });

  it('a workspace that keeps events longer keeps their weeks; the others lose theirs row by row', async () => {
    const { store, db, ids } = await start({ retentionDays: 30 });
    await maintainEventPartitions(store, T0 - 40 * DAY);
    const patient = await createWorkspace(store, { name: 'patient', region: 'us', now: T0 });
    await updateWorkspaceSettings(store, patient.id, { retentionDays: 60 });
    const mine = makeEvent(T0 - 39 * DAY, 'v');
    const theirs = makeEvent(T0 - 39 * DAY, 'w');
    await insertEvent(store, mine, ids);
    await insertEvent(store, theirs, { workspaceId: patient.id, environmentId: ids.environmentId });
    expect(await purgeExpiredEvents(store, T0, 30)).toEqual({ events: 1, deliveries: 0 });
    expect(await names(db)).toContain('events_p20251201');
    expect(Object.keys(await partitionsOf(db))).toEqual([theirs.event_id]);
    // Once past the longest retention, the week goes as a whole.
    expect(await purgeExpiredEvents(store, T0 + 30 * DAY, 30)).toEqual({ events: 1, deliveries: 0 });
    expect(await names(db)).not.toContain('events_p20251201');
  });

  it('several processes: upkeep and retention at the same time make and drop each partition once', async () => {
    const { t: service, store, db, ids } = await start({ retentionDays: 30 });
    const others: Store[] = Array.from({ length: 3 }, () => openStore({ dataDir: '', databaseUrl: service.service.ctx.config.databaseUrl! }));
    try {
      const stores = [store, ...others];
      const made = await Promise.all(stores.map((s) => maintainEventPartitions(s, T0 - 40 * DAY)));
      // Each week was made by exactly one of them (a process finding the lock taken skips).
      const all = made.flat();
      expect(new Set(all).size).toBe(all.length);
      expect(await names(db)).toEqual(expect.arrayContaining(['events_p20251201', 'events_p20251208', 'events_p20251215']));
      for (let i = 0; i < 50; i++) await insertEvent(store, makeEvent(T0 - 40 * DAY + i * HOUR, 'v'), ids);
      const purged = await Promise.all(stores.map((s) => purgeExpiredEvents(s, T0, 30)));
      // Passes that found the retention lock taken count 0; the others did the work once.
      expect(purged.reduce((a, b) => a + b.events, 0) + (await purgeExpiredEvents(store, T0, 30)).events).toBe(50);
      expect(await countEvents(store, ids.workspaceId)).toBe(0);
      expect((await names(db)).filter((n) => n < 'events_p20251215' && n.startsWith('events_p'))).toEqual([]);
    } finally {
      await Promise.all(others.map((s) => s.destroy()));
    }
  });
});

describe('migration 012-partitioned-events (postgres)', () => {
  const openFresh = freshStores();

  it('turns a populated events table into partitions without losing or changing a row', async () => {
    const { store } = await openFresh('postgres');
    const db = kyselyOf(store);
    const migrator = new Migrator({ db, provider: migrationProvider });
    expect((await migrator.migrateTo('009-search-columns')).error).toBeUndefined();
    await db.insertInto('workspaces').values({ id: 'ws_1', name: 'w', region: 'us', deletion_enabled: 0, created_at: T0, data_retention_days: null }).execute();
    const now = Date.now();
    const ids = { workspaceId: 'ws_1', environmentId: 'ae_1' };
    // Old events, recent ones, and some stamped ahead of the migration's week (a clock running fast).
    const times = [T0 - 100 * DAY, T0, ...Array.from({ length: 200 }, (_, i) => now - 200 * HOUR + i * HOUR), now + 8 * DAY, now + 30 * DAY];
    const rows = times.map((time, i) => eventColumns(makeEvent(time, `vis${i % 7}`, { linked_id: `order-${i}` }), ids));
    await db.insertInto('events').values(rows).execute();
    const before = await db.selectFrom('events').selectAll().orderBy('event_id').execute();
    expect(before).toHaveLength(times.length);

    expect(await store.migrate()).toEqual(['010-delivery-event-index', '011-cache-generation', '012-partitioned-events', '013-visitor-links', '014-delivery-payloads', '015-sqlite-time-index', '016-lz4-event-payloads', '017-visitor-keys-by-visitor']);
    const after = await db.selectFrom('events').selectAll().orderBy('event_id').execute();
    expect(after).toEqual(before);

    const boundary = partitionStart(now) + PARTITION_SPAN_MS;
    expect(await listEventPartitions(db)).toEqual(
      expect.arrayContaining([
        { name: LEGACY_PARTITION, isDefault: false, from: null, to: boundary },
        { name: DEFAULT_PARTITION, isDefault: true, from: null, to: null },
      ]),
    );
    const where = await partitionsOf(db);
    for (const row of after) expect(where[row.event_id]).toBe(row.timestamp < boundary ? LEGACY_PARTITION : DEFAULT_PARTITION);

    // The start's upkeep: the weeks after this one (the legacy partition's); the event eight
    // days ahead moves into its week, the one a month ahead stays in DEFAULT.
    const made = await maintainEventPartitions(store, now);
    expect(made[0]).toBe(partitionName(boundary));
    expect(made).toHaveLength(PARTITIONS_AHEAD);
    const moved = await partitionsOf(db);
    expect(moved[rows.at(-2)!.event_id]).toBe(partitionName(partitionStart(now + 8 * DAY)));
    expect(moved[rows.at(-1)!.event_id]).toBe(DEFAULT_PARTITION);
    expect(await db.selectFrom('events').selectAll().orderBy('event_id').execute()).toEqual(before);

    // Every event is found by its id, a new one is stored next to them, and a duplicate is refused.
    for (const row of before) expect(await getEventPayload(store, 'ws_1', row.event_id)).toBe(row.payload);
    const fresh = makeEvent(now, 'new');
    await insertEvent(store, fresh, ids);
    expect((await partitionsOf(db))[fresh.event_id]).toBe(LEGACY_PARTITION);
    await expect(insertEvent(store, fresh, ids)).rejects.toThrow(/duplicate key/);

    // The retention job drops the legacy partition as a whole once all of it is expired.
    const inLegacy = before.filter((row) => row.timestamp < boundary).length + 1;
    expect(await purgeExpiredEvents(store, boundary + 90 * DAY, 90)).toEqual({ events: inLegacy, deliveries: 0 });
    expect(await names(db)).not.toContain(LEGACY_PARTITION);
  });

  it('can be reverted: back to one table with every row', async () => {
    const { store } = await openFresh('postgres');
    const db = kyselyOf(store);
    await store.migrate();
    await maintainEventPartitions(store, T0);
    const ids = { workspaceId: 'ws_1', environmentId: 'ae_1' };
    for (const time of [T0 - 50 * DAY, T0, T0 + DAY]) await insertEvent(store, makeEvent(time, 'v'), ids);
    const before = await db.selectFrom('events').selectAll().orderBy('event_id').execute();
    const migrator = new Migrator({ db, provider: migrationProvider });
    expect((await migrator.migrateTo('011-cache-generation')).error).toBeUndefined();
    expect(await listEventPartitions(db)).toEqual([]);
    expect(await db.selectFrom('events').selectAll().orderBy('event_id').execute()).toEqual(before);
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    expect(await db.selectFrom('events').selectAll().orderBy('event_id').execute()).toEqual(before);
  });
});
