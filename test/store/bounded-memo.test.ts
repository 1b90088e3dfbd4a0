/** boundedMemo: a pure function of a string, computed once per argument while it is remembered. */
import { describe, expect, it } from 'vitest';
import { boundedMemo } from '../../src/service/store/bounded-memo.js';

describe('boundedMemo', () => {
  it('computes each argument once while it is among the `max` most recently added', () => {
    const calls: string[] = [];
    const upper = boundedMemo((s) => {
      calls.push(s);
      return s.toUpperCase();
    }, 2);
    expect(upper('a')).toBe('A');
    expect(upper('b')).toBe('B');
    expect(upper('a')).toBe('A');
    expect(calls).toEqual(['a', 'b']);
    // A third argument pushes out the oldest, which is then computed again.
    expect(upper('c')).toBe('C');
    expect(upper('a')).toBe('A');
    expect(calls).toEqual(['a', 'b', 'c', 'a']);
  });

  it('remembers falsy results too (undefined, null, empty)', () => {
    let n = 0;
    const nothing = boundedMemo(() => {
      n++;
      return undefined;
    }, 10);
    nothing('x');
    nothing('x');
    expect(n).toBe(1);
  });
});
