import { describe, expect, it } from 'vitest';
import { buildReport } from '../../bench/accuracy/report.js';
import { runSimulation } from '../../bench/accuracy/simulate.js';
import { planAllVisits } from '../../bench/accuracy/schedule.js';

describe('accuracy pipeline through the real service', () => {
  it('sends every visit of a tiny population over HTTP and reports all three methods', async () => {
    const seed = 'pipeline-test';
    const result = await runSimulation({ seed, browsers: 60, days: 10, concurrency: 4 });
    const plan = planAllVisits(seed, result.population.browsers, 10);
    expect(result.records.length).toBe(plan.length);
    expect(result.errors).toEqual({});
    for (const r of result.records) {
      expect(r.serviceId).toMatch(/\S/);
      expect(r.score).toBeGreaterThanOrEqual(0);
      expect(r.score).toBeLessThanOrEqual(1);
    }
    // Tokens came back and were sent again on later visits of the same storage.
    expect(result.records.some((r) => r.condition === 'with-token')).toBe(true);

    const report = buildReport(result, { seed, days: 10, concurrency: 4 });
    expect(report.scenario.visits).toBe(plan.length);
    const { service, cookieOnly, exactHash } = report.methods;
    expect(service.browsers).toBe(new Set(result.records.map((r) => r.browser)).size);
    // The cookie identifier never joins browsers, and loses every browser whose storage went away.
    expect(cookieOnly.mergedIds).toBe(0);
    if (result.records.some((r) => r.condition === 'storage-lost' || r.condition === 'private')) {
      expect(cookieOnly.reidentificationRate).toBeLessThan(1);
    }
    for (const m of [service, cookieOnly, exactHash]) {
      expect(m.reidentificationRate).toBeGreaterThanOrEqual(0);
      expect(m.reidentificationRate).toBeLessThanOrEqual(1);
      expect(m.idsPerBrowser.mean).toBeGreaterThanOrEqual(1);
    }
    expect(service.calibration?.reduce((n, b) => n + b.visits, 0)).toBe(service.visits - service.failedVisits);
    expect(report.cohorts.all?.browsers).toBe(service.browsers);
  }, 120_000);

  it("with the service's cookie, a WebKit browser whose script storage expired comes back with its token", async () => {
    const seed = 'pipeline-cookie';
    const days = 30;
    const result = await runSimulation({ seed, browsers: 60, days, concurrency: 4, visitorCookie: true });
    const plan = planAllVisits(seed, result.population.browsers, days);
    expect(result.errors).toEqual({});
    // The visits whose storage jar is new but whose cookie jar is not: WebKit's expiry alone.
    const seenJars = new Set<string>();
    const lastIdOfCookieJar = new Map<string, string>();
    let expired = 0;
    plan.forEach((visit, i) => {
      const record = result.records[i]!;
      const cookieKept = lastIdOfCookieJar.get(visit.cookieJar);
      if (cookieKept !== undefined && !seenJars.has(visit.jar)) {
        expired++;
        expect(record.condition).toBe('with-token');
        // The cookie's token: the ID its jar was last answered with (or the one a relink moved it to).
        if (!record.relinked) expect(record.serviceId).toBe(cookieKept);
      }
      seenJars.add(visit.jar);
      lastIdOfCookieJar.set(visit.cookieJar, record.serviceId!);
    });
    expect(expired).toBeGreaterThan(0);
  }, 120_000);
});
