/** Every test vector of the interface contract's filtering rules (shared/spec/filtering-rules.md, outside this repository), table-driven. */
import { describe, expect, it } from 'vitest';
import { compile, ExprError } from '../../src/service/filtering/expr/index.js';
import { failure, run } from './helpers.js';

const A = [1n, 2n, 3n, 4n, 5n];
const values: [string, Record<string, unknown>, unknown][] = [
  ['-.5', {}, -0.5],
  ['true && false || false', {}, false],
  ['8 % 3', {}, 2n],
  ['2 ** 8', {}, 256],
  ['-(2-5)**3-2/(+4-3)+-2', {}, 23],
  ['0 in -1..1 and 1 in 1..1', {}, true],
  ['1 in [1.5] || 1 not in [1]', {}, false],
  ['Two not    in 0..1', { Two: 2n }, true],
  ['String matches ("^" + String + "$")', { String: 'string' }, true],
  ['"foobar" contains "bar"', {}, true],
  ['(0..10)[5]', {}, 5n],
  ["len('北京')", {}, 2n],
  ['(true ? 0+1 : 2+3) + (false ? -1 : -2)', {}, -1n],
  ['filter(1..9, {# > 7})', {}, [8n, 9n]],
  ['count(1..30, {# % 3 == 0})', {}, 10n],
  ['A[-1]', { A }, 5n],
  ['A[-4:-1]', { A }, [2n, 3n, 4n]],
  ['4 in 5..1', {}, false],
  ['1 < 2 < 3', {}, true],
  ['1 < 2 < 3 > 4', {}, false],
  ['1 /* one */ + 2 // two', {}, 3n],
  ['map(1..3, let x = #; let y = x * x; y * y)', {}, [1n, 16n, 81n]],
  ['if 1 == 2 { "no" } else if 1 == 1 { "yes" } else { "maybe" }', {}, 'yes'],
  ['1; 2; 3', {}, 3n],
  ['foo.baz ?? "default"', { foo: { bar: 'value' } }, 'default'],
  ['trim("__foo___", "_")', {}, 'foo'],
  ['split("foo,bar,baz", ",", 2)', {}, ['foo', 'bar,baz']],
  ['max([1, 2, 4, 10], 20, [29, 23, -19])', {}, 29n],
  ['"hello" matches "ell"', {}, true],
  ['"x" matches "(?i)X"', {}, true],
];

const errors: [string, RegExp][] = [
  ['"ell" in "hello"', /mismatched types string and string/],
  ["1 + ''", /mismatched types int and string/],
  ['7 % 0', /integer divide by zero/],
  ['7.5 % 2', /mismatched types float and int/],
  ['unknown', /^unknown name unknown \(1:1\)$/],
];

const parseErrors: [string, string][] = [
  ['foo ?? bar || baz', '(1:12)'],
  ['[1, 2, 3,,]', '(1:10)'],
  ['a+', '(1:3)'],
];

describe('spec test vectors', () => {
  it.each(values)('%s', (source, env, expected) => {
    expect(run(source, env)).toEqual(expected);
  });

  it('2 ** 8 is a float, 8 % 3 an int', () => {
    expect(typeof run('2 ** 8')).toBe('number');
    expect(typeof run('8 % 3')).toBe('bigint');
  });

  it.each(errors)('%s is an error', (source, message) => {
    expect(failure(source)).toMatch(message);
  });

  it.each(parseErrors)('%s is a parse error at %s', (source, position) => {
    let error: unknown;
    try {
      compile(source);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ExprError);
    expect((error as ExprError).message.endsWith(position)).toBe(true);
  });

  it('mixing ?? with || is reported as such', () => {
    expect(() => compile('foo ?? bar || baz')).toThrow(/cannot be mixed/);
    expect(run('(foo ?? bar) || baz', { foo: null, bar: false, baz: true })).toBe(true);
  });
});
