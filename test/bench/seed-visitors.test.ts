import { afterEach, describe, expect, it } from 'vitest';
import { firstVisitRequests } from '../../bench/population-requests.js';
import { seedVisitors } from '../../bench/seed-events.js';
import { kyselyOf } from '../../src/service/store/index.js';
import { browserVisit } from '../helpers/browser-visits.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { liftRateLimit } from '../server-api/fixtures.js';

// The service benchmarks' seeded identities (bench/seed-events.ts seedVisitors) must be what
// ingestion writes for the same first visits: otherwise the benchmark measures lookups in
// tables unlike a real service's.
const POPULATION = 'seed-visitors-test';
const BROWSERS = 40;

interface Identity {
  keys: string[];
  profile: { c: unknown; fonts: unknown; nets: unknown };
}

async function identities(t: TestService, visitorIds: readonly string[]): Promise<Identity[]> {
  const db = kyselyOf(t.service.ctx.store);
  const out: Identity[] = [];
  for (const visitorId of visitorIds) {
    const row = await db.selectFrom('visitors').select('profile').where('visitor_id', '=', visitorId).executeTakeFirstOrThrow();
    const keys = await db.selectFrom('visitor_keys').select('key').where('visitor_id', '=', visitorId).orderBy('key').execute();
    const { c, fonts, nets } = JSON.parse(row.profile) as Identity['profile'];
    out.push({ keys: keys.map((k) => k.key), profile: { c, fonts, nets } });
  }
  return out;
}

describe('seeded visitors of the service benchmarks', () => {
  const services: TestService[] = [];
  afterEach(async () => {
    await Promise.all(services.splice(0).map((t) => t.close()));
  });

  it('hold the row, profile and keys that ingestion writes for the same first visits', async () => {
    const requests = [...firstVisitRequests(POPULATION, BROWSERS, 'pk')];
    expect(requests).toHaveLength(BROWSERS);

    const ingested = await startTestService({ config: { trustProxy: true } });
    services.push(ingested);
    await liftRateLimit(ingested);
    // Browsers whose first visit got an ID of its own (a look-alike's first visit may be linked to an earlier one's).
    const created: { index: number; visitorId: string }[] = [];
    const answered = new Set<string>();
    for (const [index, { request, rendered }] of requests.entries()) {
      const answer = await browserVisit(ingested, request.signals, rendered.ip);
      if (!answered.has(answer.visitor_id)) created.push({ index, visitorId: answer.visitor_id });
      answered.add(answer.visitor_id);
    }
    expect(created.length).toBeGreaterThan(requests.length / 2);

    const seeded = await startTestService();
    services.push(seeded);
    const seededIds = requests.map((_, i) => `seeded_${i}`);
    await seedVisitors(seeded.service, seededIds, POPULATION);

    const fromIngestion = await identities(ingested, created.map((c) => c.visitorId));
    const fromSeed = await identities(seeded, created.map((c) => seededIds[c.index]!));
    expect(fromSeed).toEqual(fromIngestion);
    const count = await kyselyOf(seeded.service.ctx.store).selectFrom('visitors').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(requests.length);
  });
});
