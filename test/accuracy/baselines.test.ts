/** The reference identifiers of the accuracy report, on hand-made visit streams. */
import { describe, expect, it } from 'vitest';
import { ORACLE_WINDOW_MS, oracleVisitorIds, type OracleVisit } from '../../bench/accuracy/baselines.js';

const DAY = 24 * 3600 * 1000;
const v = (browser: number, day: number, jar: string, exactId = `h:${browser}`, network: string | null = `net${browser}`): OracleVisit =>
  ({ browser, t: day * DAY, jar, exactId, network });

describe('distinguishability limit (oracle)', () => {
  it('keeps a browser on its original ID through storage loss and drift when nobody looks the same', () => {
    const ids = oracleVisitorIds([v(0, 0, 'a'), v(0, 1, 'a'), v(0, 2, 'b', 'h:drifted', 'elsewhere'), v(0, 3, 'b')]);
    expect(new Set(ids).size).toBe(1);
  });

  it('gives a new ID when another browser sent identical signals from the same network recently', () => {
    const ids = oracleVisitorIds([
      v(0, 0, 'a', 'h:office', 'office'),
      v(1, 1, 'x', 'h:office', 'office'),
      v(0, 2, 'b', 'h:office', 'office'), // storage lost: indistinguishable from browser 1
      v(0, 3, 'b', 'h:office', 'office'), // its storage now keeps the new ID
    ]);
    expect(ids[1]).not.toBe(ids[0]);
    expect(ids[2]).not.toBe(ids[0]);
    expect(ids[3]).toBe(ids[2]);
  });

  it('identical signals on another network, or long ago, do not count', () => {
    const elsewhere = oracleVisitorIds([v(0, 0, 'a', 'h:phone', 'home0'), v(1, 1, 'x', 'h:phone', 'home1'), v(0, 2, 'b', 'h:phone', 'home0')]);
    expect(elsewhere[2]).toBe(elsewhere[0]);
    const longAgo = oracleVisitorIds([v(1, 0, 'x', 'h:pc', 'office'), v(0, 1, 'a', 'h:pc', 'office'), { ...v(0, 0, 'b', 'h:pc', 'office'), t: DAY + ORACLE_WINDOW_MS + 1 }]);
    expect(longAgo[2]).toBe(longAgo[1]);
  });

  it('never gives one browser\'s ID to another', () => {
    const ids = oracleVisitorIds([v(0, 0, 'a', 'h:same', 'n'), v(1, 0.5, 'x', 'h:same', 'n'), v(2, 1, 'y', 'h:same', 'n')]);
    expect(new Set(ids).size).toBe(3);
  });
});
