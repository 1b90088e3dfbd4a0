/**
 * Time ranges against the partitions of `events` (event-partitions.ts, pure):
 * - the windows a statement without a time bound of its own runs over on PostgreSQL
 *   (timeWindows): all time, newest first, without overlap, each reaching at most
 *   PARTITIONS_PER_WINDOW ranged partitions;
 * - the partitions an identification's reads name for their last 24 hours (partitionsCovering).
 */
import { describe, expect, it } from 'vitest';
import { PARTITION_SPAN_MS, PARTITIONS_PER_WINDOW, partitionsCovering, timeWindows, type EventPartition } from '../../src/service/store/event-partitions.js';

const WEEK = PARTITION_SPAN_MS;
/** `n` weekly partitions, the newest starting at week 1000, beside DEFAULT and a legacy one. */
function partitions(n: number): EventPartition[] {
  const weeks = Array.from({ length: n }, (_, i): EventPartition => ({ name: `p${i}`, isDefault: false, from: (1000 - i) * WEEK, to: (1001 - i) * WEEK }));
  return [...weeks, { name: 'events_default', isDefault: true, from: null, to: null }, { name: 'events_legacy', isDefault: false, from: null, to: (1001 - n) * WEEK }];
}

/** How many of `list`'s ranged partitions a window reaches. */
const reached = (list: EventPartition[], w: { from: number | null; to: number | null }) =>
  list.filter((p) => p.from !== null && (w.to === null || p.from < w.to) && (w.from === null || p.to! > w.from)).length;

describe('time windows over the partitions of events', () => {
  it('is one unbounded window up to PARTITIONS_PER_WINDOW partitions', () => {
    expect(timeWindows([])).toEqual([{ from: null, to: null }]);
    expect(timeWindows(partitions(PARTITIONS_PER_WINDOW))).toEqual([{ from: null, to: null }]);
  });

  it('covers all time newest first, each window reaching at most PARTITIONS_PER_WINDOW partitions', () => {
    for (const n of [PARTITIONS_PER_WINDOW + 1, 100, 520]) {
      const list = partitions(n);
      const windows = timeWindows(list);
      expect(windows.length).toBe(Math.ceil(n / PARTITIONS_PER_WINDOW));
      // Open at both ends, each window starting where the next older one ends.
      expect(windows[0]!.to).toBeNull();
      expect(windows.at(-1)!.from).toBeNull();
      for (let i = 1; i < windows.length; i++) expect(windows[i]!.to).toBe(windows[i - 1]!.from);
      for (const w of windows) expect(reached(list, w)).toBeLessThanOrEqual(PARTITIONS_PER_WINDOW);
    }
  });
});

describe('the partitions holding a range', () => {
  const list = partitions(10);
  const week = (n: number) => n * WEEK;

  it('names the one or two ranged partitions of the range', () => {
    expect(partitionsCovering(list, week(1000) + 5, week(1000) + 50)).toEqual(['p0']);
    // Across a week's end: both, oldest first.
    expect(partitionsCovering(list, week(1000) - 5, week(1000) + 5)).toEqual(['p1', 'p0']);
    // The legacy partition holds everything before the weekly ones.
    expect(partitionsCovering(list, week(500), week(992))).toEqual(['events_legacy', 'p9']);
  });

  it('is null when part of the range has no ranged partition (DEFAULT holds it)', () => {
    expect(partitionsCovering(list, week(1001) - 5, week(1001) + 5)).toBeNull();
    const gap = list.filter((p) => p.name !== 'p3');
    expect(partitionsCovering(gap, week(997) - 5, week(997) + 5)).toBeNull();
    expect(partitionsCovering(gap, week(998), week(998) + 5)).toEqual(['p2']);
    expect(partitionsCovering([], 0, 1)).toBeNull();
  });
});
