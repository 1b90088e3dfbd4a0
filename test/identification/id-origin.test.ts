import { describe, expect, it } from 'vitest';
import { ID_ORIGIN_MODEL, ID_ORIGIN_MODEL_WITH_COOKIE, idOriginModel, idOriginProbability } from '../../src/service/identification/id-origin.js';

describe.each([
  ['the agent storage model', ID_ORIGIN_MODEL],
  ["the service's cookie model", ID_ORIGIN_MODEL_WITH_COOKIE],
])('idOriginProbability by %s', (_name, model) => {
  it('grows with the posterior at creation', () => {
    const at = (birth: number) => idOriginProbability(birth, 5, false, model);
    expect(at(0.1)).toBeLessThan(at(0.5));
    expect(at(0.5)).toBeLessThan(at(0.9));
  });

  it('grows with the visits the ID lasted: IDs created after a storage loss tend to be short-lived', () => {
    const after = (visits: number) => idOriginProbability(0.5, visits, false, model);
    expect(after(0)).toBeLessThan(after(1));
    expect(after(1)).toBeLessThan(after(5));
    expect(after(5)).toBeLessThan(after(50));
  });

  it('stays a probability at the edges', () => {
    for (const birth of [0, 1e-9, 0.5, 1]) {
      for (const visits of [0, 1, 1_000_000]) {
        const p = idOriginProbability(birth, visits, false, model);
        expect(p).toBeGreaterThan(0);
        expect(p).toBeLessThan(1);
      }
    }
  });

  it('at the creating visit, rates the ID above a later answer with no earlier visit', () => {
    expect(idOriginProbability(0.4, 0, true, model)).toBeGreaterThan(idOriginProbability(0.4, 0, false, model));
  });
});

describe('idOriginModel', () => {
  it("picks the cookie's model only when the service's cookie can keep the token", () => {
    expect(idOriginModel(true)).toBe(ID_ORIGIN_MODEL_WITH_COOKIE);
    expect(idOriginModel(false)).toBe(ID_ORIGIN_MODEL);
    expect(idOriginModel(undefined)).toBe(ID_ORIGIN_MODEL);
  });

  it('with the cookie, an ID created among look-alikes is more often its browser\'s own (fewer browsers lose their token)', () => {
    for (const visits of [1, 5, 20]) expect(idOriginProbability(0.4, visits, false, ID_ORIGIN_MODEL_WITH_COOKIE)).toBeGreaterThan(idOriginProbability(0.4, visits, false, ID_ORIGIN_MODEL));
  });
});
