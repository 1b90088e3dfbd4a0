/** Resource ids: the time-ordered kind sorts by time in both engines' text order, and stays unique. */
import { describe, expect, it } from 'vitest';
import { newTimeOrderedId } from '../../src/service/store/ids.js';

describe('time-ordered ids', () => {
  it('have the prefix and 20 characters, and differ within one millisecond', () => {
    const ids = Array.from({ length: 500 }, () => newTimeOrderedId('whd', 1_764_000_000_123));
    for (const id of ids) expect(id).toMatch(/^whd_[0-9a-z]{9}[A-Za-z0-9]{11}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('sort by time, byte-wise and by locale, across digit-count and letter boundaries', () => {
    const times = [0, 35, 36, 1_295, 1_296, 1_764_000_000_000, 1_764_000_000_001, 2_000_000_000_000, 36 ** 9 - 1];
    const ids = times.map((t) => newTimeOrderedId('wha', t));
    expect([...ids].sort()).toEqual(ids);
    expect([...ids].sort((a, b) => a.slice(4, 13).localeCompare(b.slice(4, 13), 'en'))).toEqual(ids);
  });
});
