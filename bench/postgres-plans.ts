/**
 * PostgreSQL query plans of the service's event statements on a populated, partitioned
 * database: each Server API search filter, a lookup by event id, the visitor history, and the
 * reads of one identification. The statements are the store's own, captured at the pg driver
 * while the store function runs, then run again under EXPLAIN ANALYZE (inside a transaction
 * that is rolled back). Prints, per statement, the partitions and indexes it read and its
 * planning and execution time.
 *
 *   npx tsx --import ./bench/compiled-code.mjs bench/postgres-plans.ts
 *   BENCH_EVENTS=1000000 BENCH_VISITORS=100000 npx tsx --import ./bench/compiled-code.mjs bench/postgres-plans.ts
 *
 * Not a speed benchmark (one execution each, on a warm cache): it shows which index serves
 * each query, which partitions it plans, and that the time stays small.
 */
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { CompiledQuery, sql } from 'kysely';
import { createService } from '../src/service/index.js';
import { parseEventSearch } from '../src/service/server-api/search-filter.js';
import { findEventsForSearch } from '../src/service/store/event-search.js';
import { listEventPartitions } from '../src/service/store/event-partitions.js';
import { getEventPayload, scanVisitorEvents } from '../src/service/store/events.js';
import { kyselyOf } from '../src/service/store/index.js';
import { readRecentActivity } from '../src/service/store/recent-activity.js';
import { insertVisitor, loadIdentificationState } from '../src/service/store/visitors.js';
import { createTestDatabase } from '../test/helpers/test-service.js';
import { writeBenchOutput } from './bench-output.js';
import { DAY, SEED_NOW, seedEvents } from './seed-events.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 300_000);
const VISITORS = Number(process.env.BENCH_VISITORS ?? 30_000);

interface Captured {
  text: string;
  values: unknown[];
}

// Every statement a pg client sends while `capturing` is set.
let capturing: Captured[] | undefined;
const pg = createRequire(import.meta.url)('pg') as { Client: { prototype: { query: (...args: unknown[]) => unknown } } };
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
  const [first, second] = args as [unknown, unknown];
  if (capturing && typeof first === 'string') capturing.push({ text: first, values: (second as unknown[] | undefined) ?? [] });
  else if (capturing && first && typeof first === 'object' && 'text' in first) {
    const q = first as { text: string; values?: unknown[] };
    capturing.push({ text: q.text, values: q.values ?? [] });
  }
  return query.apply(this, args);
};

class Rollback extends Error {}

async function capture(work: () => Promise<unknown>): Promise<Captured[]> {
  capturing = [];
  try {
    await work();
    return capturing;
  } finally {
    capturing = undefined;
  }
}

async function main(): Promise<void> {
  const database = await createTestDatabase('postgres');
  const service = await createService({ ...database.config, port: 0, logLevel: 'silent', clock: () => SEED_NOW });
  const out: string[] = [];
  try {
    const store = service.ctx.store;
    const db = kyselyOf(store);
    const { workspaceId } = service.bootstrap;
    console.log(`seeding ${EVENTS.toLocaleString('en')} events over 30 days`);
    const seeded = await seedEvents(service, { events: EVENTS, visitors: VISITORS });
    await sql`ANALYZE`.execute(db);
    const partitions = await listEventPartitions(db);
    out.push(
      `${EVENTS.toLocaleString('en')} events (${VISITORS.toLocaleString('en')} visitors) over the 30 days before ${new Date(SEED_NOW).toISOString()}, ` +
        `${partitions.length} partitions of events (${partitions.filter((p) => !p.isDefault).length} weeks and DEFAULT). Load average ${loadavg().map((l) => l.toFixed(1)).join(', ')}.`,
      '',
    );

    // A visitor, linked id, IP, URL and event that exist in the seeded data.
    const sample = await db
      .selectFrom('events')
      .select(['event_id', 'visitor_id', 'linked_id', 'ip_address', 'url', 'origin'])
      .where('event_id', '=', seeded.eventIds[Math.floor(seeded.eventIds.length * 0.9)]!)
      .executeTakeFirstOrThrow();

    const explain = async (title: string, statements: Captured[], pick: (c: Captured) => boolean = () => true) => {
      for (const statement of statements.filter((c) => pick(c) && !/^(set|begin|commit|rollback)\b/i.test(c.text.trim()))) {
        // In a transaction rolled back: EXPLAIN ANALYZE runs the statement.
        let plan: string[] = [];
        await db
          .transaction()
          .execute(async (trx) => {
            const result = await trx.executeQuery<{ 'QUERY PLAN': string }>(
              CompiledQuery.raw(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${statement.text}`, statement.values),
            );
            plan = result.rows.map((r) => r['QUERY PLAN']);
            throw new Rollback();
          })
          .catch((err: unknown) => {
            if (!(err instanceof Rollback)) throw err;
          });
        out.push(`### ${title}`, '', '```', plan.join('\n'), '```', '');
      }
    };

    const search = (query: string) => {
      const parsed = parseEventSearch(Object.fromEntries(new URLSearchParams(query)), SEED_NOW);
      return capture(() => findEventsForSearch(store, workspaceId, parsed));
    };
    // The search statement itself (the first after SET LOCAL); the payload read of the page is shown once.
    const first = (c: Captured[]) => c.filter((s) => /^select/i.test(s.text.trim())).slice(0, 1);
    for (const [title, query] of [
      ['search: no filter (7-day window)', ''],
      ['search: visitor_id', `visitor_id=${sample.visitor_id}`],
      ['search: linked_id', `linked_id=${encodeURIComponent(sample.linked_id ?? 'none')}`],
      ['search: ip_address (exact)', `ip_address=${sample.ip_address}`],
      ['search: ip_address (CIDR /16)', `ip_address=${sample.ip_address!.split('.').slice(0, 2).join('.')}.0.0/16`],
      ['search: url', `url=${encodeURIComponent(sample.url!)}`],
      ['search: origin', `origin=${encodeURIComponent(sample.origin!)}`],
      ['search: environment and vpn (no selective filter)', `environment=${service.bootstrap.environmentId}&vpn=true`],
      ['search: suspect, reverse, 30-day window', `suspect=true&reverse=true&start=${SEED_NOW - 30 * DAY}`],
    ] as const) {
      await explain(title, first(await search(query)));
    }
    const page = await search(`visitor_id=${sample.visitor_id}`);
    await explain('search: the payloads of a page', page.filter((s) => /"payload"/.test(s.text) && /"event_id" in/.test(s.text)));
    await explain('GET /v4/events/:event_id', await capture(() => getEventPayload(store, workspaceId, sample.event_id)));
    await explain(
      'v3 visitor history (no time bound: every partition)',
      await capture(() => scanVisitorEvents(store, { workspaceId, visitorId: sample.visitor_id, limit: 11 })),
    );
    await explain(
      'identification: the velocity counters and the replay check (last 24 hours)',
      await capture(() =>
        readRecentActivity(store, {
          workspaceId,
          visitorId: sample.visitor_id,
          ip: sample.ip_address ?? undefined,
          linkedId: sample.linked_id ?? undefined,
          requestHash: 'x',
          replaySince: SEED_NOW - 3 * 60_000,
          now: SEED_NOW,
        }),
      ),
    );
    const ahead = { ip: sample.ip_address ?? undefined, linkedId: sample.linked_id ?? undefined, requestHash: 'x', replaySince: SEED_NOW - 3 * 60_000, now: SEED_NOW };
    const keys = ['s:aaaaaaaa', 's:bbbbbbbb', 'c:cccccccc', 'p:dddddddd'];
    // The seeded events have no visitor rows: the sample's visitor, as its first visit wrote it.
    await insertVisitor(store, { workspaceId, visitorId: sample.visitor_id, now: SEED_NOW - DAY, profile: {}, keys });
    await explain(
      'identification: the one-statement read, with a token (the visitor and the recent activity read ahead)',
      await capture(() => loadIdentificationState(store, { workspaceId, tokenVisitorId: sample.visitor_id, keys, activity: ahead })),
    );
    await explain(
      'identification: the one-statement read, without a token (candidates, crowding, the network part of the recent activity)',
      await capture(() => loadIdentificationState(store, { workspaceId, keys, activity: ahead })),
    );
  } finally {
    await service.close();
    await database.drop();
  }
  const markdown = out.join('\n');
  console.log(markdown);
  writeBenchOutput({ name: 'postgres-plans', title: 'PostgreSQL query plans (events)', markdown, figures: { events: EVENTS, visitors: VISITORS } });
}

await main();
