/**
 * What the width of the event partitions costs the statements of an identification on
 * PostgreSQL: the backend CPU time per statement (from /proc, one connection, so one backend)
 * on the unpartitioned table of migration 009, with day partitions and with week partitions,
 * each on the same 20,000 events. The variants run in turn, BENCH_ROUNDS times, so drift in the
 * machine's load hits each of them.
 *
 *   npx tsx --import ./bench/compiled-code.mjs bench/postgres-partition-width.ts
 *   BENCH_RUNS=2000 BENCH_ROUNDS=2 npx tsx --import ./bench/compiled-code.mjs bench/postgres-partition-width.ts
 *
 * The partitions are made here for each width (createEventPartition, as the service makes its
 * weekly ones), covering the events and ten days ahead.
 */
import { loadavg } from 'node:os';
import { Migrator, sql } from 'kysely';
import { createEventPartition } from '../src/service/store/event-partitions.js';
import { eventColumns, insertEvent } from '../src/service/store/events.js';
import { kyselyOf, openStore, type Store } from '../src/service/store/index.js';
import { migrationProvider } from '../src/service/store/migrations/index.js';
import { readRecentActivity } from '../src/service/store/recent-activity.js';
import { insertVisitor, loadIdentificationState, loadVisitor, planRecordVisit } from '../src/service/store/visitors.js';
import { createTestPostgresDatabase, type TestDatabase } from '../test/helpers/test-service.js';
import { DAY, makeEvent } from '../test/server-api/fixtures.js';
import { writeBenchOutput } from './bench-output.js';
import { processCpuMs } from './process-cpu.js';

const NOW = Date.UTC(2026, 0, 15, 12);
const EVENTS = 20_000;
const RUNS = Number(process.env.BENCH_RUNS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const VARIANTS: { name: string; spanDays: number | null }[] = [
  { name: 'one table (migration 009)', spanDays: null },
  { name: 'day partitions', spanDays: 1 },
  { name: 'week partitions', spanDays: 7 },
];

async function prepare(spanDays: number | null): Promise<{ store: Store; database: TestDatabase }> {
  const database = await createTestPostgresDatabase();
  // One connection: every statement runs in the backend whose CPU time is read.
  const store = openStore({ dataDir: '', databaseUrl: database.config.databaseUrl!, poolSize: 1 });
  const db = kyselyOf(store);
  if (spanDays === null) {
    const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo('009-search-columns');
    if (error) throw error instanceof Error ? error : new Error('migrating to 009 failed');
  } else {
    await store.migrate();
    for (let from = Date.UTC(2025, 11, 1); from < NOW + 10 * DAY; from += spanDays * DAY) {
      await db.transaction().execute((trx) => createEventPartition(trx, `events_w${from}`, `w${from}`, { from, to: from + spanDays * DAY }));
    }
  }
  const ids = { workspaceId: 'ws', environmentId: 'env' };
  for (let n = 0; n < EVENTS; n += 500) {
    const rows = Array.from({ length: 500 }, (_, i) => {
      const k = n + i;
      const event = makeEvent(NOW - 30 * DAY + Math.floor((k * 30 * DAY) / EVENTS), `v${k % 5000}`, { ip_address: `10.0.${k % 250}.1`, linked_id: `l${k % 3000}` });
      return eventColumns(event, ids);
    });
    await db.insertInto('events').values(rows).execute();
  }
  for (let i = 0; i < 100; i++) {
    await insertVisitor(store, { workspaceId: 'ws', visitorId: `v${i}`, now: NOW - DAY, profile: { a: 'x'.repeat(1500) }, keys: [`s:${i}`, `c:${i}`, 'p:net'] });
  }
  await sql`analyze`.execute(db);
  return { store, database };
}

/** Backend CPU µs per call of `work`, after 200 unmeasured calls. */
async function cpuPerCall(store: Store, work: (i: number) => Promise<unknown>): Promise<number> {
  const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(kyselyOf(store));
  const pid = rows[0]!.pid;
  for (let i = 0; i < 200; i++) await work(i);
  const before = processCpuMs(pid)!;
  for (let i = 0; i < RUNS; i++) await work(i);
  return ((processCpuMs(pid)! - before) / RUNS) * 1000;
}

async function measure(spanDays: number | null): Promise<Record<string, number>> {
  const { store, database } = await prepare(spanDays);
  try {
    const ids = { workspaceId: 'ws', environmentId: 'env' };
    const activity = (i: number) => ({ ip: `10.0.${i % 250}.1`, linkedId: `l${i % 3000}`, requestHash: 'h', replaySince: NOW - 180_000, now: NOW });
    let at = NOW;
    const figures: Record<string, number> = {
      'recent activity': await cpuPerCall(store, (i) => readRecentActivity(store, { workspaceId: 'ws', visitorId: `v${i % 100}`, ...activity(i) })),
      'visitor by id': await cpuPerCall(store, (i) => loadVisitor(store, 'ws', `v${i % 100}`)),
      'write: visitor, keys and event': await cpuPerCall(store, async (i) => {
        const visitor = (await loadVisitor(store, 'ws', `v${i % 100}`))!;
        const write = planRecordVisit({ workspaceId: 'ws', visitor, now: at, profile: { a: 'x'.repeat(1500) }, keys: [`s:${i % 100}`, `c:${i % 100}`, 'p:net'], withToken: true });
        return insertEvent(store, makeEvent(at++, `v${i % 100}`), ids, { visitor: write });
      }),
    };
    // The write above includes a visitor read: counted once, taken out.
    figures['write: visitor, keys and event']! -= figures['visitor by id']!;
    if (spanDays !== null) {
      figures['token read (visitor and recent activity, one statement)'] = await cpuPerCall(store, (i) =>
        loadIdentificationState(store, { workspaceId: 'ws', tokenVisitorId: `v${i % 100}`, keys: [], activity: activity(i) }),
      );
    }
    return figures;
  } finally {
    await store.destroy();
    await database.drop();
  }
}

async function main(): Promise<void> {
  const results: { variant: string; round: number; figures: Record<string, number> }[] = [];
  const loadAtStart = loadavg().map((l) => l.toFixed(1)).join(', ');
  for (let round = 1; round <= ROUNDS; round++) {
    for (const variant of VARIANTS) {
      const figures = await measure(variant.spanDays);
      results.push({ variant: variant.name, round, figures });
      console.log(`round ${round}, ${variant.name}: ${Object.entries(figures).map(([k, v]) => `${k} ${v.toFixed(0)} µs`).join(', ')}`);
    }
  }
  const statements = [...new Set(results.flatMap((r) => Object.keys(r.figures)))];
  const markdown = [
    `PostgreSQL backend CPU per statement (µs, ${RUNS.toLocaleString('en')} runs each, ${EVENTS.toLocaleString('en')} events over 30 days, /proc clock ticks of 10 ms), ` +
      `${ROUNDS} rounds; load average at the start ${loadAtStart}, at the end ${loadavg().map((l) => l.toFixed(1)).join(', ')}.`,
    '',
    `| Round | Events table | ${statements.join(' | ')} |`,
    `| ---: | --- | ${statements.map(() => '---:').join(' | ')} |`,
    ...results.map((r) => `| ${r.round} | ${r.variant} | ${statements.map((s) => (r.figures[s] === undefined ? '' : r.figures[s].toFixed(0))).join(' | ')} |`),
  ].join('\n');
  console.log(`\n${markdown}\n`);
  writeBenchOutput({ name: 'postgres-partition-width', title: 'PostgreSQL: statement cost by partition width', markdown, figures: { results } });
}

await main();
