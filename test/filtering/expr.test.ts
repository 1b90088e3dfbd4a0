/** Unit tests of the expr-lang parser and evaluator beyond the spec vectors. */
import { describe, expect, it } from 'vitest';
import { buildEnvironment, compile, evaluate, ExprError, RULE_VARIABLES, validateExpression } from '../../src/service/filtering/expr/index.js';
import { failure, run } from './helpers.js';

const positionOf = (source: string, knownNames?: string[]): string => {
  try {
    compile(source, knownNames ? { knownNames } : {});
  } catch (e) {
    if (e instanceof ExprError) return `${e.line}:${e.column}`;
    throw e;
  }
  return 'ok';
};

describe('literals', () => {
  it('reads integers in every base, with separators, as int64', () => {
    expect(run('42 + 0x2A + 0o52 + 0b101010 + 1_000 + 052')).toBe(42n * 5n + 1000n);
    expect(run('9223372036854775807 + 1')).toBe(-9223372036854775808n);
    expect(run('-9223372036854775807 - 2')).toBe(9223372036854775807n);
    expect(run('3037000500 * 3037000500')).toBe(BigInt.asIntN(64, 3037000500n * 3037000500n));
    expect(() => compile('9223372036854775808')).toThrow(/out of range/);
    expect(() => compile('1__0')).toThrow(ExprError);
  });

  it('reads floats', () => {
    expect(run('0.5 + .5 + 1e3 + 2.5E-1')).toBe(1001.25);
    expect(run('1 == 1.0')).toBe(true);
    expect(run('"1" == 1')).toBe(false);
  });

  it('reads strings with Go escapes and raw strings', () => {
    expect(run(String.raw`"a\n\t\\\"\'" + 'x\x41\u00e9\u{1F600}\101'`)).toBe('a\n\t\\"\'xAé😀A');
    expect(run('`raw \\n ``q`` `')).toBe('raw \\n `q` ');
    expect(() => compile(String.raw`"\q"`)).toThrow(/escape/);
    expect(positionOf('"unterminated')).toBe('1:1');
  });

  it('builds arrays with a trailing comma and maps with all key forms', () => {
    expect(run('[1, 2,]')).toEqual([1n, 2n]);
    expect(run('{a: 1, "b": 2, ("c" + "d"): 3}.cd')).toBe(3n);
    expect(run('{a: 1}["a"]')).toBe(1n);
    expect(run('[true, false, nil]')).toEqual([true, false, null]);
  });

  it('gives the whole environment as $env', () => {
    expect(run('$env.x + $env["y"]', { x: 1n, y: 2n })).toBe(3n);
    expect(run('"x" in $env', { x: 1n })).toBe(true);
  });
});

describe('precedence and associativity', () => {
  it.each([
    ['1 + 2 * 3', 7n],
    ['(1 + 2) * 3', 9n],
    ['2 ** 3 ** 2', 512],
    ['2 ^ 3 ^ 2', 512],
    ['-2 ** 2', -4],
    ['10 - 4 - 3', 3n],
    ['not true == false', true],
    ['not (true == false)', true],
    ['!false && true', true],
    ['true || false && false', true],
    ['1 + 1 in 1..3', true],
    ['1..3 == [1, 2, 3]', true],
    ['nil ?? 1 + 1', 2n],
    ['true ? 1 : 2 + 10', 1n],
    ['false ? 1 : true ? 2 : 3', 2n],
    ['nil ?: "b"', 'b'],
    ['"a" ?: "b"', 'a'],
    ['1 < 2 == true', true],
    ['7 / 2', 3.5],
    ['1 / 0', Infinity],
    ['-7 % 3', -1n],
  ])('%s', (source, expected) => {
    expect(run(source)).toEqual(expected);
  });

  it('pipes into calls, including predicates', () => {
    expect(run('"a,b" | split(",") | join("-")')).toBe('a-b');
    expect(run('1..5 | filter(# > 2) | map(# * 10)')).toEqual([30n, 40n, 50n]);
    expect(run('"  x " | trim()')).toBe('x');
  });

  it('chains and sequences with let and if', () => {
    expect(run('let x = 2; let y = x * 3; x + y')).toBe(8n);
    expect(run('(let a = 1; a + 1) * 2')).toBe(4n);
    expect(run('if true { 1; 2 } else { 3 }')).toBe(2n);
  });
});

describe('semantics', () => {
  it('needs booleans for and/or/not and short-circuits', () => {
    expect(failure('1 && true')).toMatch(/must be a bool/);
    expect(failure('not 1')).toMatch(/must be a bool/);
    expect(run('false && (1 / 0 > "x")')).toBe(false);
    expect(run('true || unknownName')).toBe(true);
  });

  it('orders numbers and strings only', () => {
    expect(run('"a" < "b" && 1 < 1.5')).toBe(true);
    expect(failure('nil < 1')).toMatch(/mismatched types nil and int/);
    expect(failure('[1] < [2]')).toMatch(/mismatched/);
  });

  it('treats nil string operands as false', () => {
    for (const op of ['matches', 'contains', 'startsWith', 'endsWith']) {
      expect(run(`x ${op} "a"`, { x: null })).toBe(false);
      expect(run(`"a" ${op} x`, { x: null })).toBe(false);
    }
    expect(run('"abc" not startsWith "b" and "abc" not endsWith "b" and "abc" not contains "x"')).toBe(true);
    expect(failure('1 contains "a"')).toMatch(/mismatched types int and string/);
  });

  it('tests membership of arrays and map keys', () => {
    expect(run('"a" in {a: 1}')).toBe(true);
    expect(run('"b" not in {a: 1}')).toBe(true);
    expect(run('[1, 2] in [[1, 2]]')).toBe(true);
    expect(run('1 in [1.0]')).toBe(true);
    // A list of string literals is a set, with the same answers and the same step count.
    expect(run('s in ["a", "b"]', { s: 'b' })).toBe(true);
    expect(run('s not in ["a", "b"]', { s: 'c' })).toBe(true);
    expect(run('s in ["1"]', { s: 1n })).toBe(false);
    expect(run('s in ["a"]', { s: null })).toBe(false);
    const many = `[${Array.from({ length: 1000 }, (_, i) => `"${i}"`).join(', ')}]`;
    expect(failure(`"x" in ${many}`, {}, { maxSteps: 500, maxMemory: 1e6, timeoutMs: 100 })).toMatch(/step budget/);
  });

  it('reads members: missing key nil, field of nil an error, optional chaining', () => {
    const env = { user: { name: 'Ann', tags: ['a', 'b'] }, none: null };
    expect(run('user.missing', env)).toBe(null);
    expect(failure('user.missing.deeper', env)).toMatch(/cannot fetch deeper from nil \(1:14\)/);
    expect(run('user.missing?.deeper', env)).toBe(null);
    expect(run('none?.a.b.c', env)).toBe(null);
    expect(run('none?.[0]', env)).toBe(null);
    expect(run('user?.tags?.[1]', env)).toBe('b');
    expect(run('none?.a ?? "dflt"', env)).toBe('dflt');
  });

  it('indexes with negative indexes and errors out of range', () => {
    expect(run('[1, 2, 3][-3]')).toBe(1n);
    expect(failure('[1, 2, 3][3]')).toMatch(/index out of range: 3 \(array length is 3\)/);
    expect(failure('[1, 2, 3][-4]')).toMatch(/out of range/);
    expect(run('"héllo"[1]')).toBe('é');
  });

  it('slices arrays and strings, clamped', () => {
    const env = { A: [1n, 2n, 3n, 4n, 5n] };
    expect(run('A[1:3]', env)).toEqual([2n, 3n]);
    expect(run('A[:2]', env)).toEqual([1n, 2n]);
    expect(run('A[3:]', env)).toEqual([4n, 5n]);
    expect(run('A[-100:100]', env)).toEqual(env.A);
    expect(run('A[4:1]', env)).toEqual([]);
    expect(run('"北京市"[1:]')).toBe('京市');
  });

  it('binds #, #index and #acc in predicates, nested', () => {
    expect(run('map(["a", "b"], # + string(#index))')).toEqual(['a0', 'b1']);
    expect(run('reduce(1..4, #acc + #)')).toBe(10n);
    expect(run('reduce(1..4, #acc + #, 100)')).toBe(110n);
    expect(run('map(1..2, map(1..2, # * 10))')).toEqual([
      [10n, 20n],
      [10n, 20n],
    ]);
    expect(run('filter([{a: 1}, {a: 2}], .a > 1)')).toEqual([{ a: 2n }]);
    expect(() => compile('# + 1')).toThrow(/outside predicate/);
  });

  it('sees the nearest let name and predicate frame', () => {
    expect(run('let x = 1; map([10, 20], let y = #; map([1, 2], x + y + #))')).toEqual([
      [12n, 13n],
      [22n, 23n],
    ]);
    expect(run('let x = 1; let x = x + 1; x')).toBe(2n);
    expect(run('map([1, 2], let x = #; map([10], x + #) | first()) | sum()')).toBe(23n);
  });

  it('evaluates a compiled expression again after a failed run', () => {
    const compiled = compile('let n = x; sum(map(1..n, # * n))');
    expect(() => evaluate(compiled, buildEnvironment({ x: 1000n }), { maxSteps: 100, maxMemory: 1e6, timeoutMs: 100 })).toThrow(/step budget/);
    expect(evaluate(compiled, buildEnvironment({ x: 3n }))).toBe(18n);
    expect(evaluate(compiled, buildEnvironment({ x: 2n }))).toBe(6n);
  });
});

describe('a list of networks tested with any/all/none', () => {
  const networks = "['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7']";
  // The same test with its list behind a name takes the general path: 2 steps more (the let and
  // the name), then the same steps; spaces put the predicate at the same column in both.
  const direct = (fn: string, test: string) => `${fn}(${networks},${' '.repeat(12)}${test})`;
  const general = (fn: string, test: string) => `let l = ${networks}; ${fn}(l, ${test})`;
  const outcome = (source: string, env: Record<string, unknown>, maxSteps = 1e6): unknown => {
    try {
      return evaluate(compile(source), buildEnvironment(env), { maxSteps, maxMemory: 1e6, timeoutMs: 100 });
    } catch (e) {
      if (e instanceof ExprError) return e.message.replace(/\(\d+\)/, '');
      throw e;
    }
  };
  const cases: [string, string][] = [];
  for (const fn of ['any', 'all', 'none']) {
    for (const test of ['ip in cidr(#)', 'ip not in cidr(#)', "(ip ?? '') in cidr(#)", 'upper(ip) in cidr(#)']) cases.push([fn, test]);
  }
  const addresses = ['10.1.2.3', '192.168.7.7', '8.8.8.8', 'fd00::1', '2001:db8::1', '::ffff:172.16.0.1', 'not an address', 1n, null];

  it('answers as the general path does, errors included', () => {
    for (const [fn, test] of cases) {
      for (const ip of addresses) expect(outcome(direct(fn, test), { ip }), `${fn} ${test} ${String(ip)}`).toEqual(outcome(general(fn, test), { ip }));
    }
    expect(outcome(direct('any', 'ip in cidr(#)'), { ip: '192.168.7.7' })).toBe(true);
    expect(outcome(direct('none', 'ip in cidr(#)'), { ip: 'fd00::1' })).toBe(false);
    expect(outcome(direct('any', 'ip in cidr(#)'), { ip: 1n })).toMatch(/mismatched types int and network/);
  });

  it('counts the steps of the general path at the same positions', () => {
    for (const [fn, test] of cases) {
      for (const ip of ['10.1.2.3', '8.8.8.8', 'fd00::1']) {
        for (let maxSteps = 2; maxSteps <= 40; maxSteps++) {
          expect(outcome(direct(fn, test), { ip }, maxSteps), `${fn} ${test} ${ip} with ${maxSteps} steps`).toEqual(outcome(general(fn, test), { ip }, maxSteps + 2));
        }
      }
    }
  });

  it('leaves a list with a non-network to the general path and its error', () => {
    expect(outcome("any(['10.0.0.0/8', 'nope'], ip in cidr(#))", { ip: '8.8.8.8' })).toMatch(/invalid CIDR "nope"/);
    expect(outcome("any(['10.0.0.0/8', 'nope'], ip in cidr(#))", { ip: '10.0.0.1' })).toBe(true);
  });
});

describe('variables read by dotted name (flatNames)', () => {
  const flat = { 'a.b.c': 2n, 'a.b.d': 'x', 'h.m': { K: ['v'] } };
  const flatNames = new Set(Object.keys(flat));
  const outcome = (source: string, withFlat: boolean, maxSteps = 1e6): unknown => {
    try {
      return evaluate(compile(source, { flatNames }), buildEnvironment(flat), { maxSteps, maxMemory: 1e6, timeoutMs: 100 }, withFlat ? flat : undefined);
    } catch (e) {
      if (e instanceof ExprError) return `${e.message} at ${e.line}:${e.column}`;
      throw e;
    }
  };
  const sources = [
    'a.b.c + 1',
    "a['b'].c * a.b.c",
    "a.b.d in ['x', 'y'] && h.m['K']?.[0] == 'v'",
    "h.m.K[0] + a.b.d + (h.m['Z']?.[0] ?? '-')",
    'let a = {b: {c: 5}}; a.b.c',
    'map([1, 2], a.b.c + #) | sum()',
    'a?.b.c',
    'a.b',
  ];

  it('gives the values of the member-by-member walk, which a `let` name or `?.` keeps', () => {
    for (const source of sources) expect(outcome(source, true), source).toEqual(outcome(source, false));
    expect(outcome('let a = {b: {c: 5}}; a.b.c', true)).toBe(5n);
    expect(outcome("h.m.K[0] + a.b.d + (h.m['Z']?.[0] ?? '-')", true)).toBe('vx-');
  });

  it('counts the same steps at the same positions: every step budget fails alike', () => {
    for (const source of sources) {
      for (let maxSteps = 0; maxSteps <= 40; maxSteps++) expect(outcome(source, true, maxSteps), `${source} with ${maxSteps} steps`).toEqual(outcome(source, false, maxSteps));
    }
  });
});

describe('builtins', () => {
  it.each([
    ['upper("ab") + lower("CD")', 'ABcd'],
    ['trimPrefix("foobar", "foo") + trimSuffix("foobar", "bar")', 'barfoo'],
    ['trim("  x  ")', 'x'],
    ['splitAfter("a,b,c", ",")', ['a,', 'b,', 'c']],
    ['replace("aXbX", "X", "-")', 'a-b-'],
    ['repeat("ab", 3)', 'ababab'],
    ['join(["a", "b"], ", ")', 'a, b'],
    ['indexOf("hello", "l") + lastIndexOf("hello", "l")', 5n],
    ['hasPrefix("hello", "he") && hasSuffix("hello", "lo")', true],
    ['all([1, 2], # > 0) && any([1, 2], # > 1) && none([1, 2], # > 2) && one([1, 2], # > 1)', true],
    ['sum([1, 2, 3]) + sum(1..3, # * 2)', 18n],
    ['sum([1, 2.5])', 3.5],
    ['find(1..10, # > 3) + findIndex(1..10, # > 3) + findLast(1..10, # < 3) + findLastIndex(1..10, # < 3)', 10n],
    ['find(1..3, # > 5)', null],
    ['groupBy(1..5, # % 2 == 0)["true"]', [2n, 4n]],
    ['sortBy([{n: 2}, {n: 1}], .n)[0].n', 1n],
    ['sortBy([3, 1, 2], #, "desc")', [3n, 2n, 1n]],
    ['len([1, 2]) + len({a: 1}) + len("ab")', 5n],
    ['first([]) ?? last([1, 2])', 2n],
    ['take(1..5, 2)', [1n, 2n]],
    ['reverse([1, 2, 3])', [3n, 2n, 1n]],
    ['uniq([1, 1, 2, "a", "a"])', [1n, 2n, 'a']],
    ['concat([1], [2, 3])', [1n, 2n, 3n]],
    ['flatten([1, [2, [3]]])', [1n, 2n, 3n]],
    ['sort([3, 1, 2])', [1n, 2n, 3n]],
    ['sort(["b", "a"], "desc")', ['b', 'a']],
    ['get([1, 2], 5) ?? get({a: 1}, "a")', 1n],
    ['keys({a: 1}) + values({a: 1})', null],
    ['toPairs({a: 1})', [['a', 1n]]],
    ['fromPairs([["a", 1]]).a', 1n],
    ['abs(-3) + abs(-1.5)', 4.5],
    ['ceil(1.2) + floor(1.8) + round(2.5)', 6],
    ['min(3, [1, 2]) + max(1.5, 2)', 3n],
    ['mean([1, 2, 3, 4]) + median([3, 1, 2])', 4.5],
    ['type(1) + type(1.5) + type("") + type(nil) + type([]) + type({}) + type(true)', 'intfloatstringnilarraymapbool'],
    ['int("42") + int(3.9) + float("1.5")', 46.5],
    ['string(42) + string(1.5) + string(true) + string(nil)', '421.5true<nil>'],
    ['fromJSON(toJSON({a: [1, "x"]})).a[1]', 'x'],
    ['fromBase64(toBase64("héllo"))', 'héllo'],
    ['bitand(12, 10) + bitor(12, 10) + bitxor(12, 10) + bitnand(12, 10)', 8n + 14n + 6n + 4n],
    ['bitnot(0) + bitshl(1, 4) + bitshr(-16, 2) + bitushr(-1, 60)', -1n + 16n - 4n + 15n],
    ['duration("1h30m") == duration("90m")', true],
    ['duration("1h30m").Minutes()', 90],
    ['date("2024-03-01T12:00:00Z") - date("2024-03-01") == duration("12h")', true],
    ['date("2024-03-01").Year() * 100 + date("2024-03-01").Month()', 202403n],
    ['now() > date("2020-01-01")', true],
    ['date("2024-01-01T00:00:00Z").In(timezone("America/New_York")).Day()', 31n],
  ])('%s', (source, expected) => {
    if (expected === null && source.startsWith('keys')) {
      expect(failure(source)).toMatch(/mismatched types array and array/);
      return;
    }
    expect(run(source)).toEqual(expected);
  });

  it('rejects unknown functions and wrong arity at compile time, with positions', () => {
    expect(() => compile('nope(1)')).toThrow(/unknown func nope \(1:1\)/);
    expect(() => compile('1 + len()')).toThrow(/len\(\) takes 1 argument, got 0 \(1:5\)/);
    expect(failure('int("x")')).toMatch(/int\("x"\)/);
    expect(failure('date("yesterday")')).toMatch(/cannot parse/);
  });
});

describe('cidr extension', () => {
  it('tests IPv4 and IPv6 containment, family by family', () => {
    const at = (ip: string, source: string) => run(source, { ip });
    expect(at('10.1.2.3', "ip in cidr('10.0.0.0/8')")).toBe(true);
    expect(at('11.1.2.3', "ip in cidr('10.0.0.0/8')")).toBe(false);
    expect(at('11.1.2.3', "ip not in cidr('10.0.0.0/8')")).toBe(true);
    expect(at('2001:db8::1', "ip in cidr('2001:db8::/32')")).toBe(true);
    expect(at('2001:db9::1', "ip in cidr('2001:db8::/32')")).toBe(false);
    expect(at('10.1.2.3', "ip in cidr('::/0')")).toBe(false);
    expect(at('::ffff:10.1.2.3', "ip in cidr('10.0.0.0/8')")).toBe(true);
    expect(at('not-an-ip', "ip in cidr('0.0.0.0/0')")).toBe(false);
    expect(at('1.2.3.4', "ip in cidr('1.2.3.4')")).toBe(true);
    expect(at('10.1.2.3', "any(['192.168.0.0/16', '10.0.0.0/8'], ip in cidr(#))")).toBe(true);
  });

  it('rejects invalid networks at compile time (literal) or run time', () => {
    expect(() => compile("cidr('10.0.0.0/33')")).toThrow(/invalid CIDR "10.0.0.0\/33" \(1:6\)/);
    expect(() => compile("cidr('10/8')")).toThrow(ExprError);
    expect(failure('cidr(x)', { x: '::/129' })).toMatch(/invalid CIDR/);
  });

  it('parses a network given at run time once per rule, with the same answers every time', () => {
    const rule = compile("any(nets, ip in cidr(#))");
    const check = (ip: string, nets: string[]) => evaluate(rule, buildEnvironment({ ip, nets }));
    for (let round = 0; round < 3; round++) {
      expect(check('10.1.2.3', ['192.168.0.0/16', '10.0.0.0/8'])).toBe(true);
      expect(check('172.16.0.1', ['192.168.0.0/16', '10.0.0.0/8'])).toBe(false);
      expect(() => check('10.1.2.3', ['10.0.0.0/33'])).toThrow(/invalid CIDR/);
    }
  });
});

describe('matches is an RE2 search', () => {
  it('is unanchored, supports flags, and no lookaround', () => {
    expect(run('"Mozilla HeadlessChrome" matches "(?i)headless"')).toBe(true);
    expect(run('"abc" matches "^b"')).toBe(false);
    expect(run('"abc" not matches "^b"')).toBe(true);
    expect(run('"a\\nb" matches "(?s)a.b"')).toBe(true);
    expect(run('x matches "\\\\d+"', { x: 'ab12' })).toBe(true);
    expect(() => compile('"a" matches "(?=a)"')).toThrow(/invalid regular expression/);
    expect(() => compile('"a" matches "(a)\\\\1"')).toThrow(/invalid regular expression/);
    expect(failure('"a" matches p', { p: '(?<=a)' })).toMatch(/invalid regular expression/);
    expect(failure('1 matches "a"')).toMatch(/mismatched/);
  });
});

describe('errors and validation', () => {
  it('reports positions as line:column', () => {
    expect(positionOf('1 +\n  * 2')).toBe('2:3');
    expect(positionOf('(1 + 2')).toBe('1:7');
    expect(positionOf('foo(')).toBe('1:1');
    expect(positionOf('a ? b')).toBe('1:6');
    expect(positionOf('1 @ 2')).toBe('1:3');
    expect(positionOf('if true { 1 }')).toBe('1:14');
    expect(positionOf('let = 1; 2')).toBe('1:5');
    expect(positionOf('{a 1}')).toBe('1:4');
    expect(positionOf('/* open')).toBe('1:1');
    expect(positionOf('http.request.ipx', RULE_VARIABLES as string[])).toBe('1:1');
  });

  it('checks variable names against the request variables when asked', () => {
    expect(validateExpression("http.request.ip in cidr('10.0.0.0/8')")).toBeNull();
    expect(validateExpression("http.request.headers['Origin'][0] == 'x' && sdk.platform.is_browser")).toBeNull();
    expect(validateExpression('let x = sdk.version; x == "1"')).toBeNull();
    expect(validateExpression('http.nope')).toEqual({ line: 1, column: 1, message: 'unknown name http.nope (1:1)' });
    expect(validateExpression('1 +\n  sdk.versio')).toMatchObject({ line: 2, column: 3 });
    expect(validateExpression('')).toMatchObject({ line: 1, column: 1 });
    expect(validateExpression('"yes"')).toMatchObject({ message: 'a rule expression must return a bool (1:1)' });
    expect(validateExpression('[true]')).toMatchObject({ line: 1, column: 1 });
  });

  it('limits the size and nesting of expressions', () => {
    expect(() => compile('['.repeat(200) + ']'.repeat(200))).toThrow(/nested too deeply/);
    expect(() => compile('-'.repeat(500) + '1')).toThrow(/nested too deeply/);
    expect(() => compile(Array.from({ length: 6000 }, () => '1').join(' + '))).toThrow(/more than 10000 syntax nodes|too deep/);
    expect(() => compile(`[${'1,'.repeat(10_001)}]`)).toThrow(/more than 10000 syntax nodes/);
    expect(run(Array.from({ length: 300 }, () => '1').join(' + '))).toBe(300n);
  });

  it('bounds the work of one evaluation', () => {
    expect(failure('1..1000000000')).toMatch(/memory budget/);
    expect(failure('len(1..600000) + len(1..600000)')).toMatch(/memory budget/);
    expect(failure('repeat("x", 100000000)')).toMatch(/memory budget/);
    expect(failure('map(1..1000, map(1..1000, map(1..1000, #)))')).toMatch(/budget/);
    expect(failure('reduce(1..64, #acc + #acc, "xxxxxxxx")')).toMatch(/memory budget/);
    expect(failure('count(1..1000, count(1..1000, count(1..100, true) > 0) > 0)')).toMatch(/(step|time) budget/);
    expect(failure('map(1..100, 1)', {}, { maxSteps: 1e9, maxMemory: 1e6, timeoutMs: 0 })).toBe(undefined);
    expect(failure('count(1..100000, true)', {}, { maxSteps: 1e9, maxMemory: 1e6, timeoutMs: -1 })).toMatch(/time budget/);
  });
});

describe('memory budget on strings', () => {
  it('charges big strings before splitting, indexing or slicing them', () => {
    const big = { big: 'x'.repeat(3_000_000) };
    expect(failure('len(split(big, ""))', big)).toMatch(/memory budget/);
    expect(failure('big[1] + big[2]', big)).toMatch(/memory budget/);
    expect(failure('len(big[1:]) + len(big[2:])', big)).toMatch(/memory budget/);
    expect(run('len(big)', big)).toBe(3_000_000n);
  });
});
