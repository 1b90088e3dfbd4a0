import { describe, expect, it } from 'vitest';
import { computeMetrics, type VisitOutcome } from '../../bench/accuracy/metrics.js';
import { quantile } from '../../bench/quantile.js';

const DAY = 86_400_000;
const visit = (browser: number, day: number, id: string | null, extra: Partial<VisitOutcome> = {}): VisitOutcome => ({
  browser, t: day * DAY, id, condition: 'with-token', ...extra,
});

describe('accuracy metrics', () => {
  it('quantile uses the nearest rank', () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2);
    expect(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9)).toBe(9);
    expect(quantile([], 0.5)).toBeNaN();
    expect(quantile([], 0.5, 0)).toBe(0);
    // p99 of 1,000: the 990th.
    expect(quantile(Array.from({ length: 1000 }, (_, i) => i + 1), 0.99)).toBe(990);
  });

  it('a perfect stream re-identifies every returning visit and merges nothing', () => {
    const m = computeMetrics([visit(0, 0, 'a'), visit(1, 1, 'b'), visit(0, 2, 'a'), visit(1, 5, 'b'), visit(0, 9, 'a')]);
    expect(m.browsers).toBe(2);
    expect(m.returningVisits).toBe(3);
    expect(m.reidentificationRate).toBe(1);
    expect(m.mergedIds).toBe(0);
    expect(m.foreignVisits).toBe(0);
    expect(m.idsPerBrowser.singleIdShare).toBe(1);
    expect(m.tracking.neverLostShare).toBe(1);
    expect(m.tracking.medianDays).toBe(4); // browser 1: day 1 -> 5; browser 0: day 0 -> 9 (nearest rank)
    expect(m.tracking.p90Days).toBe(9);
  });

  it('a split counts the visits under the new ID as missed and ends tracking at the last original visit', () => {
    const m = computeMetrics([visit(0, 0, 'a'), visit(0, 3, 'a'), visit(0, 6, 'x'), visit(0, 8, 'a')]);
    expect(m.reidentifiedVisits).toBe(2);
    expect(m.reidentificationRate).toBeCloseTo(2 / 3);
    expect(m.idsPerBrowser.mean).toBe(2);
    expect(m.tracking.medianDays).toBe(3);
    expect(m.tracking.neverLostShare).toBe(0);
    expect(m.mergedIds).toBe(0);
  });

  it('a false merge counts the ID once and every visit of the intruder as foreign', () => {
    const first = { condition: 'first-visit' } as const;
    const m = computeMetrics([visit(0, 0, 'a', first), visit(1, 1, 'a', first), visit(1, 2, 'a'), visit(2, 3, 'c', first)]);
    expect(m.ids).toBe(2);
    expect(m.mergedIds).toBe(1);
    expect(m.mergedIdShare).toBe(0.5);
    expect(m.foreignVisits).toBe(2);
    expect(m.foreignVisitShare).toBe(0.5);
    // Browser 1's original ID is 'a' (its first visit), so its returning visit counts as re-identified...
    expect(m.reidentificationRate).toBe(1);
    // ...but its first visit did not get an ID of its own: 2 of 3 first visits are correct.
    expect(m.byCondition['first-visit']?.visits).toBe(3);
    expect(m.byCondition['first-visit']?.rate).toBeCloseTo(2 / 3);
    // The merge happened at browser 1's first visit.
    expect(m.mergedBy).toEqual({ 'first-visit': 1 });
  });

  it('says how each merged ID was merged: the condition of its earliest visit from another browser', () => {
    const m = computeMetrics([
      visit(0, 0, 'a', { condition: 'first-visit' }),
      visit(1, 1, 'b', { condition: 'first-visit' }),
      visit(1, 4, 'a', { condition: 'storage-lost' }),
      visit(2, 5, 'b', { condition: 'first-visit' }),
      visit(2, 6, 'a', { condition: 'private' }),
    ]);
    expect(m.mergedIds).toBe(2);
    expect(m.mergedBy).toEqual({ 'storage-lost': 1, 'first-visit': 1 });
  });

  it('excludes failed requests from everything but the failure count', () => {
    const m = computeMetrics([visit(0, 0, 'a'), visit(0, 1, null), visit(0, 2, 'a')]);
    expect(m.visits).toBe(3);
    expect(m.failedVisits).toBe(1);
    expect(m.returningVisits).toBe(1);
    expect(m.reidentificationRate).toBe(1);
  });

  it('calibration compares the mean predicted wrong rate with the observed wrong rate per bin', () => {
    const m = computeMetrics(
      [
        visit(0, 0, 'a', { score: 0.9, condition: 'first-visit' }),
        visit(0, 1, 'a', { score: 0.9 }),
        visit(0, 2, 'x', { score: 0.9 }),
        visit(1, 3, 'x', { score: 0.6, condition: 'first-visit' }),
      ],
      { calibrationEdges: [0, 0.5, 0.8, 1.0000001] },
    );
    const [low, mid, high] = m.calibration ?? [];
    expect(low?.visits).toBe(0);
    // Browser 1's only visit got 'x', owned by browser 0: wrong.
    expect(mid).toMatchObject({ visits: 1, observedWrong: 1, observedForeign: 1 });
    expect(mid?.predictedWrong).toBeCloseTo(0.4);
    expect(mid?.gapPoints).toBeCloseTo(60);
    expect(high?.visits).toBe(3);
    expect(high?.predictedWrong).toBeCloseTo(0.1);
    expect(high?.observedWrong).toBeCloseTo(1 / 3);
    expect(high?.observedForeign).toBe(0); // browser 0's split to 'x' is wrong but not foreign
  });

  it('restricts per-cohort figures to the cohort while ownership stays global', () => {
    const visits = [visit(0, 0, 'a'), visit(1, 1, 'a'), visit(1, 2, 'b')];
    const cohort = computeMetrics(visits, { include: (b) => b === 1 });
    expect(cohort.browsers).toBe(1);
    expect(cohort.foreignVisits).toBe(1); // its first visit went to browser 0's ID
    expect(cohort.ids).toBe(1); // only 'b' is owned by the cohort
    expect(cohort.reidentificationRate).toBe(0);
    expect(computeMetrics(visits, { include: (b) => b === 0 }).mergedIds).toBe(1);
  });

  it('reports no calibration for a method without scores', () => {
    expect(computeMetrics([visit(0, 0, 'a')]).calibration).toBeNull();
  });
});
