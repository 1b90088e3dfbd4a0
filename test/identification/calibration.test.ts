/** Confidence calibration: a monotone, invertible map from model confidence to observed probability. */
import { describe, expect, it } from 'vitest';
import { calibrate, fitCalibration, uncalibrate } from '../../src/service/identification/calibration.js';
import { CALIBRATION_POINTS } from '../../src/service/identification/calibration-points.js';

/** A deterministic stream of [0, 1) numbers (no Math.random in tests). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

describe('confidence calibration', () => {
  const points = [[0.3, 0.2], [0.6, 0.7], [0.9, 0.95]] as const;

  it('interpolates between the points and keeps 0 and 1 fixed', () => {
    expect(calibrate(0, points)).toBe(0);
    expect(calibrate(1, points)).toBe(1);
    expect(calibrate(0.3, points)).toBeCloseTo(0.2);
    expect(calibrate(0.45, points)).toBeCloseTo(0.45);
    expect(calibrate(0.95, points)).toBeCloseTo(0.975);
    expect(calibrate(-1, points)).toBe(0);
    expect(calibrate(2, points)).toBe(1);
  });

  it('without points is the identity', () => {
    for (const x of [0, 0.123, 0.5, 0.999, 1]) expect(calibrate(x, [])).toBeCloseTo(x);
  });

  it('uncalibrate inverts calibrate, also for the fitted points in use', () => {
    for (const table of [points, CALIBRATION_POINTS]) {
      for (let x = 0; x <= 1; x += 0.05) expect(uncalibrate(calibrate(x, table), table)).toBeCloseTo(x, 6);
    }
  });

  it('the fitted points in use are strictly increasing inside (0, 1)', () => {
    CALIBRATION_POINTS.forEach(([x, y], i) => {
      expect(x).toBeGreaterThan(0);
      expect(y).toBeLessThan(1);
      if (i > 0) {
        expect(x).toBeGreaterThan(CALIBRATION_POINTS[i - 1]![0]);
        expect(y).toBeGreaterThan(CALIBRATION_POINTS[i - 1]![1]);
      }
    });
  });

  it('fits the true probability of an overconfident model, monotone', () => {
    // The model says p; the truth is p squared (overconfident everywhere but at 0 and 1).
    const next = lcg(7);
    const samples = Array.from({ length: 40_000 }, () => {
      const raw = next();
      return { raw, correct: next() < raw * raw };
    });
    const fitted = fitCalibration(samples);
    expect(fitted.length).toBeGreaterThan(10);
    for (let i = 1; i < fitted.length; i++) {
      expect(fitted[i]![0]).toBeGreaterThan(fitted[i - 1]![0]);
      expect(fitted[i]![1]).toBeGreaterThan(fitted[i - 1]![1]);
    }
    for (const x of [0.2, 0.5, 0.8]) expect(calibrate(x, fitted)).toBeCloseTo(x * x, 1);
  });

  it('pools a model whose confidence is not monotone in truth into one level', () => {
    // Right 70% of the time whatever the model says: the fit is flat (one pooled point).
    const next = lcg(11);
    const samples = Array.from({ length: 10_000 }, () => ({ raw: next(), correct: next() < 0.7 }));
    const fitted = fitCalibration(samples);
    expect(fitted.length).toBeLessThanOrEqual(6);
    expect(calibrate(0.5, fitted)).toBeGreaterThan(0.55);
    expect(calibrate(0.5, fitted)).toBeLessThan(0.85);
  });
});
