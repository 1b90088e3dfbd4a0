import { describe, expect, it } from 'vitest';
import { parsePlacement, placeRule } from '../../src/service/management-api/rule-placement.js';

describe('placeRule', () => {
  const others = ['a', 'b', 'c'];
  it('puts the rule at a position, after or before another, without gaps', () => {
    expect(placeRule(others, 'x', { position: 0 }, 3)).toEqual(['x', 'a', 'b', 'c']);
    expect(placeRule(others, 'x', { position: 2 }, 3)).toEqual(['a', 'b', 'x', 'c']);
    expect(placeRule(others, 'x', { position: 99 }, 0)).toEqual(['a', 'b', 'c', 'x']);
    expect(placeRule(others, 'x', { after: 'a' }, 3)).toEqual(['a', 'x', 'b', 'c']);
    expect(placeRule(others, 'x', { after: 'c' }, 0)).toEqual(['a', 'b', 'c', 'x']);
    expect(placeRule(others, 'x', { before: 'a' }, 3)).toEqual(['x', 'a', 'b', 'c']);
  });
  it('keeps the default index without a placement', () => {
    expect(placeRule(others, 'x', undefined, 1)).toEqual(['a', 'x', 'b', 'c']);
    expect(placeRule([], 'x', undefined, 0)).toEqual(['x']);
  });
  it('refuses an anchor that is not a rule of the environment (or the rule itself)', () => {
    expect(placeRule(others, 'x', { after: 'zz' }, 0)).toMatch(/names no other rule/);
    expect(placeRule(others, 'x', { before: 'x' }, 0)).toMatch(/names no other rule/);
  });
  it('parses exactly one of position, after, before', () => {
    expect(parsePlacement({ position: 1 })).toEqual({ position: 1 });
    expect(parsePlacement({ after: 'tr_1' })).toEqual({ after: 'tr_1' });
    expect(parsePlacement({ before: 'tr_1' })).toEqual({ before: 'tr_1' });
    for (const bad of [null, [], 3, {}, { position: -1 }, { position: 1.5 }, { after: '' }, { position: 1, after: 'a' }, { at: 1 }]) {
      expect(typeof parsePlacement(bad)).toBe('string');
    }
  });
});
