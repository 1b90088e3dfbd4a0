/** The bounded JSON.parse cache that identification reads visitor profiles through. */
import { describe, expect, it } from 'vitest';
import { createParsedJsonCache } from '../../src/service/store/parsed-json-cache.js';

describe('createParsedJsonCache', () => {
  it('parses a text once and hands every caller the same frozen value', () => {
    const parse = createParsedJsonCache(10);
    const text = '{"c":{"ua":["a","b"]},"nets":["v4:198.51.100"]}';
    const first = parse(text) as { c: { ua: string[] }; nets: string[] };
    expect(first).toEqual({ c: { ua: ['a', 'b'] }, nets: ['v4:198.51.100'] });
    // The same object for the same text, even from another string instance.
    expect(parse(JSON.stringify(JSON.parse(text)))).toBe(first);
    // Shared, so nothing can change it for the others: deeply frozen.
    expect(() => first.nets.push('v4:203.0.113')).toThrow(TypeError);
    expect(() => {
      first.c.ua[0] = 'changed';
    }).toThrow(TypeError);
    expect(first.c.ua).toEqual(['a', 'b']);
  });

  it('answers null for text that does not parse', () => {
    const parse = createParsedJsonCache(10);
    expect(parse('{not json')).toBeNull();
    expect(parse('')).toBeNull();
  });

  it('remembers at most `max` texts, forgetting the oldest first', () => {
    const parse = createParsedJsonCache(2);
    const a = parse('{"n":1}');
    parse('{"n":2}');
    expect(parse('{"n":1}')).toBe(a);
    parse('{"n":3}');
    // {"n":1} was the oldest entry: parsed again, a new object with the same content.
    const again = parse('{"n":1}');
    expect(again).toEqual(a);
    expect(again).not.toBe(a);
  });
});
