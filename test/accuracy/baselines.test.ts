/** The reference identifiers of the accuracy report, on hand-made visit streams. */
import { describe, expect, it } from 'vitest';
import { attainableVisitorIds, comparableSignalIds, ORACLE_WINDOW_MS, oracleVisitorIds, type AttainableVisit, type OracleVisit } from '../../bench/accuracy/baselines.js';
import type { Signals } from '../../src/protocol/index.js';

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

describe('attainable limit (the oracle across networks)', () => {
  /** A visit of `browser` showing device signals `device` (stable signals `stable`) from `network`. */
  const a = (browser: number, day: number, jar: string, device: string, network: string | null, more: Partial<AttainableVisit> = {}): AttainableVisit => ({
    ...v(browser, day, jar, `h:${device}`, network), signalIds: { device: `d:${device}`, stable: `s:${device}` }, noisy: false, ...more,
  });

  it('keeps the ID of a browser whose signals nobody else showed, on any network', () => {
    const ids = attainableVisitorIds([a(0, 0, 'j0', 'rare', 'home'), a(1, 1, 'k0', 'other', 'carrier'), a(0, 2, 'j1', 'rare', 'carrier')]);
    expect(ids[2]).toBe(ids[0]);
  });

  it('gives a new ID when an identical device was seen elsewhere, unless this network sets the browser apart', () => {
    // Identical phones: browser 1 only on its own home network.
    const stream = [a(0, 0, 'j0', 'phone', 'home0'), a(1, 1, 'k0', 'phone', 'home1')];
    const atHome = attainableVisitorIds([...stream, a(0, 2, 'j1', 'phone', 'home0')]);
    expect(atHome[2]).toBe(atHome[0]);
    const onCarrier = attainableVisitorIds([...stream, a(0, 2, 'j1', 'phone', 'carrier')]);
    expect(onCarrier[2]).not.toBe(onCarrier[0]);
    // The distinguishability limit keeps that one: the twin never used this network.
    const oracle = oracleVisitorIds([...stream, a(0, 2, 'j1', 'phone', 'carrier')]);
    expect(oracle[2]).toBe(oracle[0]);
    // The twin on the same home network too: no network sets them apart.
    const shared = attainableVisitorIds([...stream, a(1, 1.5, 'k0', 'phone', 'home0'), a(0, 2, 'j1', 'phone', 'home0')]);
    expect(shared[3]).not.toBe(shared[0]);
    // An identical device seen longer ago than the window does not count.
    const longAgo = attainableVisitorIds([a(1, 0, 'k0', 'phone', 'home1'), a(0, 1, 'j0', 'phone', 'home0'), a(0, 31 + ORACLE_WINDOW_MS / DAY, 'j1', 'phone', 'carrier')]);
    expect(longAgo[2]).toBe(longAgo[1]);
  });

  it('compares a noisy visit by its stable signals only', () => {
    // Browser 1 has the same stable signals as browser 0 (another canvas, say); browser 0's
    // private window randomises canvas, so only the stable signals compare.
    const stream = [a(0, 0, 'j0', 'mac', 'home0'), a(1, 1, 'k0', 'mac-twin', 'home1', { signalIds: { device: 'd:mac-twin', stable: 's:mac' } })];
    const clean = attainableVisitorIds([...stream, a(0, 2, 'j1', 'mac', 'cafe')]);
    expect(clean[2]).toBe(clean[0]);
    const noisy = attainableVisitorIds([...stream, a(0, 2, 'j1', 'noise-1', 'cafe', { signalIds: { device: 'd:noise-1', stable: 's:mac' }, noisy: true })]);
    expect(noisy[2]).not.toBe(noisy[0]);
  });

  it('device signals leave out the private-window flag and the colour scheme; stable ones also the noisy components', () => {
    const base = { canvas: { winding: true, geometry: 'g', text: 't' }, audio: 'x', hardware_concurrency: 8, languages: ['en'] } as unknown as Signals;
    const ids = comparableSignalIds(base);
    expect(comparableSignalIds({ ...base, incognito: { likely: true }, color_scheme: 'dark' } as Signals)).toEqual(ids);
    const farbled = comparableSignalIds({ ...base, canvas: { winding: true, geometry: 'G', text: 'T' }, audio: 'y', hardware_concurrency: 4 });
    expect(farbled.stable).toBe(ids.stable);
    expect(farbled.device).not.toBe(ids.device);
    expect(comparableSignalIds({ ...base, languages: ['de'] }).stable).not.toBe(ids.stable);
  });
});
