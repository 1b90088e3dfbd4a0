import { describe, expect, it } from 'vitest';
import { fingerprintTwins } from '../../bench/accuracy/report.js';
import type { VisitRecord } from '../../bench/accuracy/simulate.js';

const record = (browser: number, exactId: string): VisitRecord => ({
  browser, t: browser, condition: 'with-token', network: 'home', serviceId: 'v', score: 1, error: null, exactId, cookieId: `c:${browser}`, oracleId: 'o',
});

describe('accuracy report', () => {
  it('fingerprint twins are the browsers that shared a complete signal set with another browser', () => {
    const twins = fingerprintTwins([record(0, 'h:a'), record(1, 'h:a'), record(1, 'h:b'), record(2, 'h:c'), record(2, 'h:c'), record(3, 'h:d')]);
    expect([...twins].sort()).toEqual([0, 1]);
  });
});
