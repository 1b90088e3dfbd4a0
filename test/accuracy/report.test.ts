import { describe, expect, it } from 'vitest';
import type { SimBrowser } from '../../bench/accuracy/population.js';
import { indexStream } from '../../bench/accuracy/metrics.js';
import type { AccuracyMetrics } from '../../bench/accuracy/metrics.js';
import { accuracyGoals, clusterBucket, fingerprintTwins, relinkFigures, segmentsOfBrowsers, type SegmentRow } from '../../bench/accuracy/report.js';
import type { SimulationResult, VisitRecord } from '../../bench/accuracy/simulate.js';

const record = (browser: number, exactId: string, over: Partial<VisitRecord> = {}): VisitRecord => ({
  browser, t: browser, condition: 'with-token', network: 'home', serviceId: 'v', score: 1, error: null, exactId, cookieId: `c:${browser}`, oracleId: 'o', attainableId: 'a', ...over,
});

describe('accuracy report', () => {
  it('fingerprint twins are the browsers that shared a complete signal set with another browser', () => {
    const twins = fingerprintTwins([record(0, 'h:a'), record(1, 'h:a'), record(1, 'h:b'), record(2, 'h:c'), record(2, 'h:c'), record(3, 'h:d')]);
    expect([...twins].sort()).toEqual([0, 1]);
  });

  it('segments: device kind, cluster size, main network, storage kept or lost', () => {
    const browser = (index: number, cls: string) => ({ index, device: { cls } }) as unknown as SimBrowser;
    const result = {
      population: { browsers: [browser(0, 'phone'), browser(1, 'phone'), browser(2, 'desktop')] },
      records: [
        record(0, 'h:a', { network: 'carrier' }), record(0, 'h:a', { network: 'carrier' }), record(0, 'h:b', { network: 'home' }),
        record(1, 'h:a', { network: 'home', condition: 'storage-lost' }),
        record(2, 'h:c', { network: 'office', condition: 'private' }),
      ],
    } as unknown as SimulationResult;
    const segments = segmentsOfBrowsers(result);
    expect(segments.get(0)).toEqual({ device: 'mobile', cluster: '2-4', network: 'carrier', storage: 'storage kept' });
    expect(segments.get(1)).toEqual({ device: 'mobile', cluster: '2-4', network: 'home', storage: 'storage lost or private' });
    expect(segments.get(2)).toEqual({ device: 'desktop', cluster: '1 (unique)', network: 'office', storage: 'storage lost or private' });
    expect([1, 2, 4, 5, 19, 20].map(clusterBucket)).toEqual(['1 (unique)', '2-4', '2-4', '5-19', '5-19', '20+']);
  });

  it('relinking: what each relinked storage got against keeping its previous ID, and the merges relinks caused', () => {
    const v = (browser: number, t: number, serviceId: string, jar: string, relinked = false): VisitRecord =>
      record(browser, 'h', { t, serviceId, cookieId: jar, ...(relinked ? { relinked } : {}) });
    const records = [
      // Browser 0: first ID A; its storage is lost, new ID Y; relinked back to A, then one more visit.
      v(0, 1, 'A', 'j0'), v(0, 2, 'Y', 'j1'), v(0, 3, 'Y', 'j1'), v(0, 4, 'A', 'j1', true), v(0, 5, 'A', 'j1'),
      // Browser 1: its own ID B, later relinked to A (browser 0's): a merge.
      v(1, 6, 'B', 'k0'), v(1, 7, 'A', 'k0', true),
    ];
    const index = indexStream(records.map((r) => ({ browser: r.browser, t: r.t, id: r.serviceId, condition: r.condition })));
    expect(relinkFigures(records, index, 5)).toEqual({ relinks: 2, toOriginal: 1, toForeign: 1, visits: 3, gained: 2, lost: 1, netPoints: 20, mergedIds: 1 });
  });

  it("judges issue 17's goals on the service's figures", () => {
    const service = {
      reidentificationRate: 0.8, mergedIdShare: 0.001, mergedIds: 10,
      byCondition: { 'storage-lost': { visits: 10, reidentified: 5, rate: 0.5 }, private: { visits: 10, reidentified: 7, rate: 0.7 } },
    } as unknown as AccuracyMetrics;
    const segment = (value: string, browsers: number, deltaPoints: number) =>
      ({ dimension: 'network', value, browsers, deltaPoints, service: { reidentificationRate: 0, foreignVisitShare: 0 }, cookieOnly: { reidentificationRate: 0 } }) as SegmentRow;
    const goals = accuracyGoals(service, [segment('home', 100, 0), segment('roaming', 19, -3)], { worstGapPoints: 5, judgedBins: 6 });
    expect(goals.map((g) => [g.value, g.met])).toEqual([
      ['80.00%', true],
      ['50.00%', true],
      ['70.00%', false],
      ['0.100% (10)', false],
      // The segment of 19 browsers is shown in the report but not judged.
      ['worst 0.00 points (network home)', true],
      ['worst 5.00 points over 6 bins', true],
    ]);
    const without = accuracyGoals({ ...service, byCondition: {} }, [segment('home', 100, -0.01)], { worstGapPoints: null, judgedBins: 0 });
    expect(without.map((g) => g.met)).toEqual([true, false, false, false, false, false]);
  });
});
