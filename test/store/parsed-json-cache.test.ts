/** The bounded JSON.parse cache that identification reads visitor profiles through. */
import { describe, expect, it } from 'vitest';
import { createParsedJsonCache } from '../../src/service/store/parsed-json-cache.js';

describe('createParsedJsonCache', () => {
  it("parses an owner's text once and hands every caller the same value", () => {
    const parse = createParsedJsonCache(10);
    const text = '{"c":{"ua":["a","b"]},"nets":["v4:198.51.100"]}';
    const first = parse('v1', text);
    expect(first).toEqual({ c: { ua: ['a', 'b'] }, nets: ['v4:198.51.100'] });
    // The same object for the same text, even from another string instance: shared, so its
    // readers take it as read-only (decide-identification.test.ts runs the decision on frozen visitors).
    expect(parse('v1', JSON.stringify(JSON.parse(text)))).toBe(first);
  });

  it("parses an owner's changed text anew, and never hands one owner's value to another", () => {
    const parse = createParsedJsonCache(10);
    const before = parse('v1', '{"n":1}');
    expect(parse('v1', '{"n":2}')).toEqual({ n: 2 });
    // The earlier text is forgotten with the change: parsed again, a new object.
    const again = parse('v1', '{"n":1}');
    expect(again).toEqual(before);
    expect(again).not.toBe(before);
    // Another owner with the same text gets its own value.
    expect(parse('v2', '{"n":1}')).not.toBe(again);
  });

  it('answers null for text that does not parse', () => {
    const parse = createParsedJsonCache(10);
    expect(parse('v1', '{not json')).toBeNull();
    expect(parse('v2', '')).toBeNull();
  });

  it('remembers at most `max` owners, forgetting the one parsed longest ago first', () => {
    const parse = createParsedJsonCache(2);
    const a = parse('v1', '{"n":1}');
    const b = parse('v2', '{"n":2}');
    expect(parse('v1', '{"n":1}')).toBe(a);
    parse('v3', '{"n":3}');
    // v1 was parsed first: it goes, v2 stays.
    expect(parse('v2', '{"n":2}')).toBe(b);
    const again = parse('v1', '{"n":1}');
    expect(again).toEqual(a);
    expect(again).not.toBe(a);
  });

  it("with keep false, uses a kept value but keeps nothing, and the owner's entry goes", () => {
    const parse = createParsedJsonCache(2);
    const a = parse('v1', '{"n":1}');
    // The owner is about to change: its kept value serves this read, then it is gone.
    expect(parse('v1', '{"n":1}', false)).toBe(a);
    expect(parse('v1', '{"n":1}')).not.toBe(a);
    // A changed text is parsed, not kept, and the outdated entry goes with it.
    const b = parse('v2', '{"n":2}');
    const changed = parse('v2', '{"n":3}', false);
    expect(changed).toEqual({ n: 3 });
    expect(parse('v2', '{"n":3}')).not.toBe(changed);
    expect(parse('v2', '{"n":2}')).not.toBe(b);
    // Nothing kept pushes another owner out: v1 and v2 fill the two places, and a read that
    // keeps nothing does not evict either.
    const v1 = parse('v1', '{"n":1}');
    const v2 = parse('v2', '{"n":2}');
    parse('v3', '{"n":4}', false);
    expect(parse('v1', '{"n":1}')).toBe(v1);
    expect(parse('v2', '{"n":2}')).toBe(v2);
  });
});
