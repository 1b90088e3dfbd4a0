/**
 * Seeds a service's database with synthetic v4 events for the benchmarks that need "a database
 * of 1 million stored events": rows go through the store's own column mapping, in multi-row
 * inserts inside transactions (far faster than ingestion, which is what some benchmarks time).
 */
import { sql } from 'kysely';
import type { V4Event } from '../src/events/v4-event.js';
import type { Service } from '../src/service/index.js';
import { eventColumns, maintainEventPartitions } from '../src/service/store/events.js';
import { randomString } from '../src/service/store/ids.js';
import { kyselyOf } from '../src/service/store/index.js';
import { insertVisitor } from '../src/service/store/visitors.js';
import { extractFeatures, lookupKeys } from '../src/service/identification/features.js';
import { networkPrefix } from '../src/service/identification/network.js';
import { emptyProfile, updateProfile } from '../src/service/identification/profile.js';
import { Rng } from './accuracy/prng.js';
import { firstVisitRequests, type PopulationRequest } from './population-requests.js';
import { DAY, makeEvent } from '../test/server-api/fixtures.js';

export { DAY };

/** The benchmarks' "now": seeded events end here; services run with this clock. */
export const SEED_NOW = Date.UTC(2026, 0, 15, 12);
/** Events spread over the last 30 days, so a 7-day window holds about a quarter of them. */
const SPAN = 30 * DAY;
const ROWS_PER_INSERT = 1000;
const INSERTS_PER_TRANSACTION = 10;

/** A plausible event (the Server API tests' fixture) varied by `n` across IPs, URLs and signals. */
function benchEvent(timestamp: number, visitorId: string, environmentId: string, n: number): V4Event {
  const ip = `198.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
  return makeEvent(timestamp, visitorId, {
    event_id: `${timestamp}.${randomString(6)}`,
    environment_id: environmentId,
    url: `https://shop.example/products/${n % 5000}`,
    ip_address: ip,
    incognito: n % 17 === 0,
    developer_tools: false,
    privacy_settings: false,
    virtual_machine: false,
    tampering: false,
    vpn: n % 23 === 0,
    suspect_score: n % 7,
    ip_info: { v4: { address: ip, asn: '64500', asn_name: 'Example Net', asn_network: '198.0.0.0/8', datacenter_result: false } },
  });
}

/** Seeds through the store's own row mapping, in multi-row inserts inside transactions. */
export async function seedEvents(
  service: Service,
  { events: EVENTS, visitors: VISITORS }: { events: number; visitors: number },
): Promise<{ visitors: string[]; eventIds: string[] }> {
  const db = kyselyOf(service.ctx.store);
  const { workspaceId, environmentId } = service.bootstrap;
  // PostgreSQL: the partitions of the seeded span, as a service running through those days
  // would have made them (otherwise every seeded event would sit in the DEFAULT partition).
  for (let day = SEED_NOW - SPAN; day < SEED_NOW; day += 7 * DAY) await maintainEventPartitions(service.ctx.store, day);
  const visitors = Array.from({ length: VISITORS }, () => randomString(20));
  const eventIds: string[] = [];
  const started = performance.now();
  let n = 0;
  while (n < EVENTS) {
    await db.transaction().execute(async (trx) => {
      for (let b = 0; b < INSERTS_PER_TRANSACTION && n < EVENTS; b++) {
        const rows = [];
        for (let i = 0; i < ROWS_PER_INSERT && n < EVENTS; i++, n++) {
          // Time order, as ingestion writes them; visitors interleave at random.
          const timestamp = SEED_NOW - SPAN + Math.floor((n * SPAN) / EVENTS);
          const visitor = visitors[Math.floor(Math.random() * VISITORS)]!;
          const event = benchEvent(timestamp, visitor, environmentId, n);
          if (n % 97 === 0) eventIds.push(event.event_id);
          rows.push(eventColumns(event, { workspaceId, environmentId }));
        }
        await trx.insertInto('events').values(rows).execute();
      }
    });
    if (n % 100_000 === 0) process.stdout.write(`  seeded ${n.toLocaleString('en')} events\r`);
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`  seeded ${EVENTS.toLocaleString('en')} events in ${seconds.toFixed(1)} s (${Math.round(EVENTS / seconds).toLocaleString('en')}/s)`);
  return { visitors, eventIds };
}

const VISITORS_PER_TRANSACTION = 500;

/**
 * Gives each of `visitorIds` (seedEvents' visitors) the identity a service that stored their
 * events would hold: a visitor row with its profile and its lookup keys, written by the store's
 * own insertVisitor as ingestion writes them for a first visit, from the first visits of a
 * simulated population of as many browsers (seed `population`, not the benchmark's measured
 * browsers), seen at random over the seeded span. Without them the identification tables hold
 * only the measured browsers, a few thousand rows: every lookup then hits a small, cached index
 * (and PostgreSQL plans the candidates' read for a table of that size), which a database of a
 * million events does not have.
 */
export async function seedVisitors(service: Service, visitorIds: readonly string[], population = 'seeded-visitors'): Promise<void> {
  const { store } = service.ctx;
  const { workspaceId } = service.bootstrap;
  const started = performance.now();
  const rng = new Rng(population, 'last-seen');
  let batch: { visitorId: string; visit: PopulationRequest }[] = [];
  const writeBatch = async () => {
    await store.transaction(async (trx) => {
      for (const { visitorId, visit } of batch) {
        const features = extractFeatures(visit.request.signals);
        const network = networkPrefix(visit.rendered.ip);
        const now = SEED_NOW - Math.floor(rng.next() * SPAN);
        await insertVisitor(trx, { workspaceId, visitorId, now, profile: updateProfile(emptyProfile(), features, network), keys: lookupKeys(features, network) });
      }
    });
    batch = [];
  };
  // The visits are rendered one at a time as they are written (all at once they hold hundreds of MB).
  let next = 0;
  for (const visit of firstVisitRequests(population, visitorIds.length, 'seed')) {
    batch.push({ visitorId: visitorIds[next++]!, visit });
    if (batch.length === VISITORS_PER_TRANSACTION) await writeBatch();
  }
  if (batch.length > 0) await writeBatch();
  const seconds = (performance.now() - started) / 1000;
  console.log(`  seeded ${visitorIds.length.toLocaleString('en')} visitors with their keys in ${seconds.toFixed(1)} s`);
}

/**
 * After seeding, the database as a running installation would hold it, before any load is
 * measured. PostgreSQL: what autovacuum would have done after the bulk load, at once (this
 * machine kind's PostgreSQL runs with autovacuum off): planner statistics, and the visibility
 * map that lets it count index entries without reading their rows. Then both engines write the
 * bulk load back (a checkpoint), so that the loads measure the steady state: without it
 * PostgreSQL's checkpoints of the seeding ran through the first loads of the service benchmark
 * (2026-12-02 02:24-02:25, 5,359 buffers written over 84 s; p99 349.7 ms at a quarter of the
 * maximum rate). SQLite's statistics are its service's job (run by the caller).
 */
export async function settleAfterSeeding(service: Service): Promise<void> {
  const db = kyselyOf(service.ctx.store);
  if (service.ctx.store.engine === 'postgres') {
    await sql`VACUUM (ANALYZE)`.execute(db);
    await sql`CHECKPOINT`.execute(db);
  } else {
    await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db);
  }
}
