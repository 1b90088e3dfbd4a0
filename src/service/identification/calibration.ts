/**
 * Confidence calibration (pure). The matcher's posteriors and the token path's fixed
 * confidences are model probabilities; this monotone map turns them into the observed
 * probability that the answer is right. The points are fitted by isotonic regression on a
 * simulated population whose seed is not the one the accuracy report uses
 * (`npm run fit:calibration`, bench/accuracy/fit-calibration.ts, writes calibration-points.ts).
 */
import { CALIBRATION_POINTS } from './calibration-points.js';

/** [model probability, observed probability] pairs, both strictly increasing. */
export type CalibrationPoints = readonly (readonly [number, number])[];

/** Piecewise-linear through the points (and through (0, 0) and (1, 1) beyond them). */
function interpolate(x: number, points: CalibrationPoints, from: 0 | 1): number {
  const to = from === 0 ? 1 : 0;
  const all = [[0, 0] as const, ...points, [1, 1] as const];
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  for (let i = 1; i < all.length; i++) {
    const a = all[i - 1]!;
    const b = all[i]!;
    if (x <= b[from]) {
      const span = b[from] - a[from];
      return span <= 0 ? b[to] : a[to] + ((x - a[from]) / span) * (b[to] - a[to]);
    }
  }
  return 1;
}

export function calibrate(raw: number, points: CalibrationPoints = CALIBRATION_POINTS): number {
  return interpolate(raw, points, 0);
}

/** The inverse of calibrate(): the model probability behind a reported score (for refitting). */
export function uncalibrate(score: number, points: CalibrationPoints = CALIBRATION_POINTS): number {
  return interpolate(score, points, 1);
}

/**
 * Isotonic regression of correctness on the model probability (pool-adjacent-violators over
 * `bins` quantile bins), as strictly increasing points so that the map stays invertible.
 */
export function fitCalibration(samples: readonly { raw: number; correct: boolean }[], bins = 40): [number, number][] {
  const sorted = [...samples].sort((a, b) => a.raw - b.raw);
  type Block = { raw: number; hits: number; n: number };
  const blocks: Block[] = [];
  const size = Math.max(1, Math.ceil(sorted.length / bins));
  for (let i = 0; i < sorted.length; i += size) {
    const chunk = sorted.slice(i, i + size);
    blocks.push({ raw: chunk.reduce((s, x) => s + x.raw, 0), hits: chunk.filter((x) => x.correct).length, n: chunk.length });
  }
  // Pool adjacent blocks while the observed rate decreases.
  const pooled: Block[] = [];
  for (const block of blocks) {
    pooled.push({ ...block });
    while (pooled.length >= 2 && pooled.at(-2)!.hits / pooled.at(-2)!.n >= pooled.at(-1)!.hits / pooled.at(-1)!.n) {
      const last = pooled.pop()!;
      const prev = pooled.at(-1)!;
      prev.raw += last.raw;
      prev.hits += last.hits;
      prev.n += last.n;
    }
  }
  const points: [number, number][] = [];
  for (const b of pooled) {
    const x = Math.round((b.raw / b.n) * 1e4) / 1e4;
    const y = Math.round((b.hits / b.n) * 1e4) / 1e4;
    const last = points.at(-1);
    // Strictly increasing in both coordinates, inside (0, 1) where the ends are fixed.
    if (x <= 0 || x >= 1 || y <= 0 || y >= 1 || (last && (x <= last[0] || y <= last[1]))) continue;
    points.push([x, y]);
  }
  return points;
}
