import { describe, expect, it } from 'vitest';
import { applyMatchOverrides } from '../../bench/accuracy/match-overrides.js';

describe('--match overrides of the accuracy benchmark', () => {
  it('sets known tunables to the given numbers and names them', () => {
    const match = { newBits: 6, minScore: 20 };
    expect(applyMatchOverrides(match, ['newBits=7.5', 'minScore=18'])).toEqual(['newBits=7.5', 'minScore=18']);
    expect(match).toEqual({ newBits: 7.5, minScore: 18 });
  });

  it('refuses unknown tunables and values that are not numbers, changing nothing they name', () => {
    const match = { newBits: 6 };
    expect(() => applyMatchOverrides(match, ['newbits=7'])).toThrow(/no tunable "newbits".*known: newBits/);
    expect(() => applyMatchOverrides(match, ['newBits=seven'])).toThrow(/expected name=number/);
    expect(() => applyMatchOverrides(match, ['newBits='])).toThrow(/expected name=number/);
    expect(() => applyMatchOverrides(match, ['newBits'])).toThrow(/expected name=number/);
    expect(() => applyMatchOverrides(match, ['toString=1'])).toThrow(/no tunable/);
    expect(match).toEqual({ newBits: 6 });
  });
});
