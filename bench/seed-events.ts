/**
 * Seeds a service's database with synthetic v4 events for the benchmarks that need "a database
 * of 1 million stored events": rows go through the store's own column mapping, in multi-row
 * inserts inside transactions (far faster than ingestion, which is what some benchmarks time).
 */
import type { V4Event } from '../src/events/v4-event.js';
import type { Service } from '../src/service/index.js';
import { eventColumns, maintainEventPartitions } from '../src/service/store/events.js';
import { randomString } from '../src/service/store/ids.js';
import { kyselyOf } from '../src/service/store/index.js';
import type { VisitorKeysTable, VisitorsTable } from '../src/service/store/schema.js';
import { planInsertVisitor } from '../src/service/store/visitors.js';
import { extractFeatures, lookupKeys } from '../src/service/identification/features.js';
import { networkPrefix } from '../src/service/identification/network.js';
import { emptyProfile, updateProfile } from '../src/service/identification/profile.js';
import type { Insertable } from 'kysely';
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

const VISITOR_ROWS_PER_INSERT = 500;

/**
 * Gives each of `visitorIds` (seedEvents' visitors) the identity a service that stored their
 * events would hold: a visitor row with its profile and its lookup keys, as ingestion writes
 * them for a first visit (planInsertVisitor), from the first visits of a simulated population of
 * as many browsers (seed `population`, not the benchmark's measured browsers), last seen at
 * random over the seeded span. Without them the identification tables hold only the measured
 * browsers, a few thousand rows: every lookup then hits a small, cached index (and PostgreSQL
 * plans the candidates' read for a table of that size), which a database of a million events
 * does not have.
 */
export async function seedVisitors(service: Service, visitorIds: readonly string[], population = 'seeded-visitors'): Promise<void> {
  const db = kyselyOf(service.ctx.store);
  const { workspaceId } = service.bootstrap;
  const started = performance.now();
  const requests = firstVisitRequests(population, visitorIds.length, 'seed');
  const rng = new Rng(population, 'last-seen');
  for (let from = 0; from < visitorIds.length; from += VISITOR_ROWS_PER_INSERT) {
    const visitors: Insertable<VisitorsTable>[] = [];
    const keys: Insertable<VisitorKeysTable>[] = [];
    for (const visitorId of visitorIds.slice(from, from + VISITOR_ROWS_PER_INSERT)) {
      const { request, rendered } = requests.next().value as PopulationRequest;
      const features = extractFeatures(request.signals);
      const network = networkPrefix(rendered.ip);
      const now = SEED_NOW - Math.floor(rng.next() * SPAN);
      const plan = planInsertVisitor({ workspaceId, visitorId, now, profile: updateProfile(emptyProfile(), features, network), keys: lookupKeys(features, network) });
      // The row as ingestion writes it: the stored profile's JSON and the keys (visitors.ts).
      const values = plan.values as { profile: string; freshKeys: string };
      visitors.push({ visitor_id: visitorId, workspace_id: workspaceId, first_seen_at: now, last_seen_at: now, visit_count: 1, last_token_at: null, profile: values.profile });
      for (const key of JSON.parse(values.freshKeys) as string[]) keys.push({ workspace_id: workspaceId, key, visitor_id: visitorId, last_seen_at: now });
    }
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('visitors').values(visitors).execute();
      await trx.insertInto('visitor_keys').values(keys).execute();
    });
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`  seeded ${visitorIds.length.toLocaleString('en')} visitors with their keys in ${seconds.toFixed(1)} s`);
}
