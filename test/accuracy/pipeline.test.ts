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
});
