import { describe, expect, it } from 'vitest';
import { idOriginProbability } from '../../src/service/identification/id-origin.js';

describe('idOriginProbability', () => {
  it('grows with the posterior at creation', () => {
    const at = (birth: number) => idOriginProbability(birth, 5, false);
    expect(at(0.1)).toBeLessThan(at(0.5));
    expect(at(0.5)).toBeLessThan(at(0.9));
  });

  it('grows with the visits the ID lasted: IDs created after a storage loss tend to be short-lived', () => {
    const after = (visits: number) => idOriginProbability(0.5, visits, false);
    expect(after(0)).toBeLessThan(after(1));
    expect(after(1)).toBeLessThan(after(5));
    expect(after(5)).toBeLessThan(after(50));
  });

  it('stays a probability at the edges', () => {
    for (const birth of [0, 1e-9, 0.5, 1]) {
      for (const visits of [0, 1, 1_000_000]) {
        const p = idOriginProbability(birth, visits, false);
        expect(p).toBeGreaterThan(0);
        expect(p).toBeLessThan(1);
      }
    }
  });

  it('at the creating visit, rates the ID above a later answer with no earlier visit', () => {
    expect(idOriginProbability(0.4, 0, true)).toBeGreaterThan(idOriginProbability(0.4, 0, false));
  });
});
