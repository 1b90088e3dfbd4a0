/** Property tests: the parser and evaluator fail only with ExprError, and always terminate. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildEnvironment, compile, evaluate, ExprError, type Limits } from '../../src/service/filtering/expr/index.js';

const env = buildEnvironment({ x: 3n, f: 1.5, s: 'abc', arr: [1n, 2n, 3n], m: { a: 1n, b: 'x' }, n: null, 'http.request.ip': '10.1.2.3' });
const limits: Limits = { maxSteps: 100_000, maxMemory: 100_000, timeoutMs: 50 };

const VOCABULARY = [
  ...['0', '1', '-1', '42', '0x1F', '0b1', '0o7', '1_000', '1.5', '.5', '1e3', '9223372036854775807'],
  ...['"a"', "'b'", '`r`', '"\\n"', '"(?i)A"', '"10.0.0.0/8"', '""'],
  ...['x', 'f', 's', 'arr', 'm', 'n', 'y', '$env', 'http.request.ip', 'true', 'false', 'nil', '#', '#index', '#acc'],
  ...['+', '-', '*', '/', '%', '**', '^', '==', '!=', '<', '>', '<=', '>=', '&&', '||', '!', '??', '?', ':', '?:', '|', '..', '.', '?.', ';', ',', '='],
  ...['and', 'or', 'not', 'in', 'matches', 'contains', 'startsWith', 'endsWith', 'let', 'if', 'else'],
  ...['(', ')', '[', ']', '{', '}', '(', ')', '[', ']'],
  ...['len(', 'map(', 'filter(', 'all(', 'reduce(', 'repeat(', 'cidr(', 'split(', 'max(', 'sort(', 'upper(', 'int(', 'toJSON(', 'fromJSON(', 'date(', 'duration(', 'sum(', 'groupBy('],
  ...['// c\n', '/* c */', '\n'],
];

function outcome(source: string): 'ok' | 'error' {
  let compiled;
  try {
    compiled = compile(source);
  } catch (e) {
    expect(e).toBeInstanceOf(ExprError);
    return 'error';
  }
  try {
    evaluate(compiled, env, limits);
    return 'ok';
  } catch (e) {
    expect(e).toBeInstanceOf(ExprError);
    return 'error';
  }
}

describe('robustness', () => {
  it('random strings never crash the parser or evaluator with anything but ExprError', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (s) => {
        outcome(s);
      }),
      { numRuns: 400 },
    );
  });

  it('random token sequences never crash and always terminate', () => {
    const tokens = fc.array(fc.constantFrom(...VOCABULARY), { minLength: 1, maxLength: 25 }).map((t) => t.join(' '));
    fc.assert(
      fc.property(tokens, (source) => {
        const started = Date.now();
        outcome(source);
        expect(Date.now() - started).toBeLessThan(1000);
      }),
      { numRuns: 1500 },
    );
  });

  it('random well-formed arithmetic agrees with a BigInt model (wrapping int64)', () => {
    const int = fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n });
    fc.assert(
      fc.property(int, int, fc.constantFrom('+', '-', '*'), (a, b, op) => {
        const expected = BigInt.asIntN(64, op === '+' ? a + b : op === '-' ? a - b : a * b);
        expect(evaluate(compile(`a ${op} b`), buildEnvironment({ a, b }))).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('bounded work: huge ranges, nested repeats and predicates end with a budget error', () => {
    for (const source of [
      '1..1000000000',
      'len(repeat(repeat("x", 100000), 100000))',
      'map(1..100000, repeat("ab", 100000))',
      'all(1..1000000, all(1..1000000, true))',
      'reduce(1..100, #acc + #acc, "abcdefgh")',
      'sort(map(1..900000, -#))',
      'map(1..2000, map(1..2000, #))',
    ]) {
      const started = Date.now();
      expect(() => evaluate(compile(source), env)).toThrow(/budget/);
      expect(Date.now() - started).toBeLessThan(2000);
    }
  });

  it('deep nesting is a clear parse error, not a stack overflow', () => {
    for (const source of ['('.repeat(5000) + '1' + ')'.repeat(5000), '!'.repeat(5000) + 'true', '[{a: '.repeat(3000), 'x' + '.a'.repeat(5000), 'x' + '[0]'.repeat(4000)]) {
      expect(() => compile(source)).toThrow(ExprError);
    }
  });
});
