/**
 * Accuracy metrics of one identification method over one simulated visit stream. Pure.
 *
 * Definitions (a "browser" is a true simulated browser; an "ID" is a visitor ID the method gave):
 * - original ID of a browser: the ID its first visit received.
 * - owner of an ID: the browser whose visit first received it.
 * - a visit is correct when it got its browser's original ID and that ID is owned by the
 *   browser (a first visit falsely joined to another browser's ID is wrong, and so are all
 *   the browser's later visits under that ID).
 * - re-identification rate: share of returning visits (every visit but a browser's first)
 *   that received the browser's original ID.
 * - merged IDs: IDs that hold visits of more than one true browser; foreign visits: visits
 *   whose ID is owned by another browser.
 * - tracking duration: days from a browser's first visit to its last visit before the first
 *   visit that received a different ID (to its last visit if that never happens), over
 *   browsers with at least two visits.
 * - calibration: visits binned by confidence score; per bin, predicted wrong rate (mean of
 *   1 - score) against the observed share of visits that are not correct.
 * Failed requests (id null) are counted and excluded from everything else.
 */
import { quantile } from '../quantile.js';

export type VisitCondition = 'first-visit' | 'with-token' | 'storage-lost' | 'private';

export interface VisitOutcome {
  browser: number;
  t: number;
  id: string | null;
  score?: number;
  condition: VisitCondition;
}

export interface CalibrationBin {
  from: number;
  to: number;
  visits: number;
  predictedWrong: number;
  observedWrong: number;
  /** Share of the bin's visits whose ID belongs to another browser (the merge part of "wrong"). */
  observedForeign: number;
  /** |predicted - observed| in percentage points. */
  gapPoints: number;
}

export interface ConditionFigures {
  visits: number;
  reidentified: number;
  rate: number;
}

export interface AccuracyMetrics {
  browsers: number;
  visits: number;
  failedVisits: number;
  returningVisits: number;
  reidentifiedVisits: number;
  reidentificationRate: number;
  ids: number;
  mergedIds: number;
  mergedIdShare: number;
  foreignVisits: number;
  foreignVisitShare: number;
  /**
   * How the merged IDs were merged: per condition, the merged IDs whose first visit from a
   * browser other than their owner came in that condition (from the cohort's browsers).
   */
  mergedBy: Partial<Record<VisitCondition, number>>;
  idsPerBrowser: { mean: number; p50: number; p90: number; max: number; singleIdShare: number };
  tracking: { browsers: number; medianDays: number; p90Days: number; meanDays: number; neverLostShare: number; meanObservedDays: number };
  byCondition: Partial<Record<VisitCondition, ConditionFigures>>;
  calibration: CalibrationBin[] | null;
}

export const DEFAULT_CALIBRATION_EDGES = [0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0000001];
const DAY = 86_400_000;


function ratio(a: number, b: number): number {
  return b === 0 ? 0 : a / b;
}

/** Ownership and per-browser facts computed once over the whole stream. */
export interface StreamIndex {
  owner: Map<string, number>;
  original: Map<number, string>;
  browsersOfId: Map<string, Set<number>>;
  visitsOf: Map<number, VisitOutcome[]>;
}

export function indexStream(visits: readonly VisitOutcome[]): StreamIndex {
  const ordered = [...visits].filter((v) => v.id !== null).sort((a, b) => a.t - b.t);
  const owner = new Map<string, number>();
  const original = new Map<number, string>();
  const browsersOfId = new Map<string, Set<number>>();
  const visitsOf = new Map<number, VisitOutcome[]>();
  for (const v of ordered) {
    const id = v.id as string;
    if (!owner.has(id)) owner.set(id, v.browser);
    if (!original.has(v.browser)) original.set(v.browser, id);
    let set = browsersOfId.get(id);
    if (!set) browsersOfId.set(id, (set = new Set()));
    set.add(v.browser);
    let list = visitsOf.get(v.browser);
    if (!list) visitsOf.set(v.browser, (list = []));
    list.push(v);
  }
  return { owner, original, browsersOfId, visitsOf };
}

/**
 * A visit is correct when it got its browser's original ID and that ID is owned by the
 * browser (the definition the calibration is judged by).
 */
export function isCorrect(v: VisitOutcome, index: StreamIndex): boolean {
  return v.id !== null && v.id === index.original.get(v.browser) && index.owner.get(v.id) === v.browser;
}

/**
 * Metrics over the browsers accepted by `include` (all by default). ID ownership is always
 * global, so a cohort's visits attributed to a browser outside the cohort still count as foreign.
 */
export function computeMetrics(
  visits: readonly VisitOutcome[],
  options: { include?: (browser: number) => boolean; calibrationEdges?: readonly number[]; index?: StreamIndex } = {},
): AccuracyMetrics {
  const include = options.include ?? (() => true);
  const index = options.index ?? indexStream(visits);
  const { owner, original, browsersOfId, visitsOf } = index;

  let failedVisits = 0;
  let total = 0;
  for (const v of visits) {
    if (!include(v.browser)) continue;
    total++;
    if (v.id === null) failedVisits++;
  }

  let browsers = 0;
  let returningVisits = 0;
  let reidentifiedVisits = 0;
  let foreignVisits = 0;
  let scored = false;
  const idCounts: number[] = [];
  const trackingDays: number[] = [];
  let neverLost = 0;
  let observedDaysSum = 0;
  const byCondition: Partial<Record<VisitCondition, ConditionFigures>> = {};
  const idsOfCohort = new Set<string>();
  /** Per ID, its earliest visit from a browser other than its owner. */
  const firstForeign = new Map<string, VisitOutcome>();
  const edges = options.calibrationEdges ?? DEFAULT_CALIBRATION_EDGES;
  const bins = edges.slice(1).map(() => ({ visits: 0, predicted: 0, wrong: 0, foreign: 0 }));

  for (const [browser, list] of visitsOf) {
    if (!include(browser)) continue;
    browsers++;
    const orig = original.get(browser) as string;
    const ids = new Set<string>();
    let lostAt: number | null = null;
    let keptUntil = (list[0] as VisitOutcome).t;
    list.forEach((v, i) => {
      const id = v.id as string;
      ids.add(id);
      idsOfCohort.add(id);
      const gotOriginal = id === orig;
      const correct = isCorrect(v, index);
      if (owner.get(id) !== browser) {
        foreignVisits++;
        const earliest = firstForeign.get(id);
        if (!earliest || v.t < earliest.t) firstForeign.set(id, v);
      }
      if (i > 0) {
        returningVisits++;
        if (gotOriginal) reidentifiedVisits++;
        const c = (byCondition[v.condition] ??= { visits: 0, reidentified: 0, rate: 0 });
        c.visits++;
        if (gotOriginal) c.reidentified++;
      } else {
        const c = (byCondition[v.condition] ??= { visits: 0, reidentified: 0, rate: 0 });
        c.visits++;
        if (correct) c.reidentified++;
      }
      if (lostAt === null) {
        if (gotOriginal) keptUntil = v.t;
        else lostAt = v.t;
      }
      if (v.score !== undefined) {
        scored = true;
        for (let b = 0; b < bins.length; b++) {
          if (v.score >= (edges[b] as number) && v.score < (edges[b + 1] as number)) {
            const bin = bins[b] as (typeof bins)[number];
            bin.visits++;
            bin.predicted += 1 - v.score;
            if (!correct) bin.wrong++;
            if (owner.get(id) !== browser) bin.foreign++;
            break;
          }
        }
      }
    });
    idCounts.push(ids.size);
    if (list.length >= 2) {
      const first = (list[0] as VisitOutcome).t;
      trackingDays.push((keptUntil - first) / DAY);
      observedDaysSum += ((list[list.length - 1] as VisitOutcome).t - first) / DAY;
      if (lostAt === null) neverLost++;
    }
  }
  for (const c of Object.values(byCondition)) c.rate = ratio(c.reidentified, c.visits);

  let mergedIds = 0;
  let cohortIds = 0;
  const mergedBy: Partial<Record<VisitCondition, number>> = {};
  for (const id of idsOfCohort) {
    if (!include(owner.get(id) as number)) continue;
    cohortIds++;
    if ((browsersOfId.get(id)?.size ?? 0) > 1) {
      mergedIds++;
      const how = firstForeign.get(id)?.condition;
      if (how) mergedBy[how] = (mergedBy[how] ?? 0) + 1;
    }
  }

  idCounts.sort((a, b) => a - b);
  trackingDays.sort((a, b) => a - b);
  const visitsCounted = total - failedVisits;
  return {
    browsers,
    visits: total,
    failedVisits,
    returningVisits,
    reidentifiedVisits,
    reidentificationRate: ratio(reidentifiedVisits, returningVisits),
    ids: cohortIds,
    mergedIds,
    mergedIdShare: ratio(mergedIds, cohortIds),
    foreignVisits,
    foreignVisitShare: ratio(foreignVisits, visitsCounted),
    mergedBy,
    idsPerBrowser: {
      mean: ratio(idCounts.reduce((a, b) => a + b, 0), idCounts.length),
      p50: quantile(idCounts, 0.5, 0),
      p90: quantile(idCounts, 0.9, 0),
      max: idCounts[idCounts.length - 1] ?? 0,
      singleIdShare: ratio(idCounts.filter((n) => n === 1).length, idCounts.length),
    },
    tracking: {
      browsers: trackingDays.length,
      medianDays: quantile(trackingDays, 0.5, 0),
      p90Days: quantile(trackingDays, 0.9, 0),
      meanDays: ratio(trackingDays.reduce((a, b) => a + b, 0), trackingDays.length),
      neverLostShare: ratio(neverLost, trackingDays.length),
      meanObservedDays: ratio(observedDaysSum, trackingDays.length),
    },
    byCondition,
    calibration: scored
      ? bins.map((bin, i) => {
          const predictedWrong = ratio(bin.predicted, bin.visits);
          const observedWrong = ratio(bin.wrong, bin.visits);
          return {
            from: edges[i] as number,
            to: Math.min(1, edges[i + 1] as number),
            visits: bin.visits,
            predictedWrong,
            observedWrong,
            observedForeign: ratio(bin.foreign, bin.visits),
            gapPoints: Math.abs(predictedWrong - observedWrong) * 100,
          };
        })
      : null,
  };
}
