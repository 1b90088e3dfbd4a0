import { describe, expect, it } from 'vitest';
import { fitLogistic, sigmoid } from '../../bench/accuracy/logistic.js';
import { Rng } from '../../bench/accuracy/prng.js';

describe('fitLogistic', () => {
  it('recovers the weights that generated the outcomes', () => {
    const truth = [-1.3, 0.7, 0.9];
    const rng = new Rng('logistic-test');
    const x: number[][] = [];
    const y: boolean[] = [];
    for (let i = 0; i < 40_000; i++) {
      const row = [1, rng.next() * 6 - 3, Math.log1p(rng.next() * 50)];
      x.push(row);
      y.push(rng.next() < sigmoid(row.reduce((s, v, j) => s + v * truth[j]!, 0)));
    }
    const w = fitLogistic(x, y);
    // Sampling noise on 40,000 rows: a few hundredths.
    w.forEach((wi, j) => expect(Math.abs(wi - truth[j]!)).toBeLessThan(0.1));
  });

  it('an intercept alone fits the observed rate', () => {
    const y = [true, true, true, false];
    const [w0] = fitLogistic(y.map(() => [1]), y);
    expect(sigmoid(w0!)).toBeCloseTo(0.75, 6);
  });

  it('refuses mismatched input', () => {
    expect(() => fitLogistic([[1]], [])).toThrow(/as many outcomes/);
  });
});
