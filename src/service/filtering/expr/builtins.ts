/** The builtin functions of expr-lang (v1.17) that rules may call, plus the `cidr` extension. */
import {
  compare,
  Duration,
  equal,
  isInt,
  isMap,
  isNumber,
  Network,
  Opaque,
  parseDuration,
  Time,
  toFloat,
  toPlain,
  typeName,
  wrap,
  Zone,
  type MapValue,
  type Value,
} from './values.js';

/** A predicate argument, evaluated by the evaluator with `#`, `#index` and `#acc` bound. */
export type Predicate = (element: Value, index: number, acc?: Value) => Value;
export type Arg = Value | Predicate;

export interface CallContext {
  /** Charges the memory budget (array elements; strings count one unit per 4 characters). */
  charge(units: number): void;
  /** Charges the step budget for work done inside a builtin (sorting, uniq). */
  tick(units: number): void;
  /** Throws an ExprError at the position of the call. */
  fail(message: string): never;
  /** `text` as a network, parsed once per rule version (undefined when it is no CIDR). */
  network(text: string): Network | undefined;
}

interface Builtin {
  min: number;
  max: number;
  /** Index of the argument that is a predicate `{ ... }`. */
  predicate?: number;
  fn(args: Arg[], ctx: CallContext): Value;
}

const str = (v: Arg, ctx: CallContext, what = 'argument'): string => (typeof v === 'string' ? v : ctx.fail(`${what} must be a string, got ${argType(v)}`));
const arr = (v: Arg, ctx: CallContext): Value[] => (Array.isArray(v) ? (v) : ctx.fail(`argument must be an array, got ${argType(v)}`));
const int = (v: Arg, ctx: CallContext): bigint => (isInt(v as Value) ? (v as bigint) : ctx.fail(`argument must be an int, got ${argType(v)}`));
const num = (v: Arg, ctx: CallContext): bigint | number => (isNumber(v as Value) ? (v as bigint | number) : ctx.fail(`argument must be a number, got ${argType(v)}`));
const map = (v: Arg, ctx: CallContext): MapValue => (isMap(v as Value) ? (v as MapValue) : ctx.fail(`argument must be a map, got ${argType(v)}`));
const pred = (v: Arg): Predicate => v as Predicate;
const argType = (v: Arg): string => (typeof v === 'function' ? 'func' : typeName(v));
const smallInt = (v: Arg, ctx: CallContext): number => Number(BigInt.asIntN(32, int(v, ctx)));

function bool(v: Value, ctx: CallContext): boolean {
  return typeof v === 'boolean' ? v : ctx.fail(`predicate should return a boolean, got ${typeName(v)}`);
}

/** A new array holding `values`, charged to the memory budget. */
function copy<T>(values: T[], ctx: CallContext): T[] {
  ctx.charge(values.length);
  return [...values];
}

const newMap = (): MapValue => Object.create(null) as MapValue;

export function keyOf(v: Value, ctx: CallContext): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  return ctx.fail(`a ${typeName(v)} cannot be a map key`);
}

function cutset(s: string, chars: string, left: boolean, right: boolean): string {
  const set = new Set(chars);
  const cps = [...s];
  let a = 0;
  let b = cps.length;
  if (left) while (a < b && set.has(cps[a]!)) a++;
  if (right) while (b > a && set.has(cps[b - 1]!)) b--;
  return cps.slice(a, b).join('');
}

function splitN(s: string, sep: string, n: number, after: boolean, ctx: CallContext): string[] {
  if (n === 0) return [];
  ctx.charge(sep === '' ? s.length : s.length / 4);
  let parts: string[];
  if (sep === '') parts = [...s];
  else {
    parts = [];
    let rest = s;
    for (;;) {
      if (n > 0 && parts.length === n - 1) break;
      const at = rest.indexOf(sep);
      if (at < 0) break;
      parts.push(rest.slice(0, at) + (after ? sep : ''));
      rest = rest.slice(at + sep.length);
    }
    parts.push(rest);
  }
  if (sep === '' && n > 0 && parts.length > n) parts = [...parts.slice(0, n - 1), parts.slice(n - 1).join('')];
  ctx.charge(parts.length);
  return parts;
}

function flattenNumbers(args: Arg[], ctx: CallContext, out: (bigint | number)[] = []): (bigint | number)[] {
  for (const a of args) {
    if (Array.isArray(a)) flattenNumbers(a, ctx, out);
    else out.push(num(a, ctx));
  }
  return out;
}

function sumOf(values: Value[], ctx: CallContext): bigint | number {
  let intSum = 0n;
  let floatSum = 0;
  let isFloat = false;
  for (const v of values) {
    const n = num(v, ctx);
    if (typeof n === 'bigint') intSum = wrap(intSum + n);
    else {
      isFloat = true;
      floatSum += n;
    }
  }
  return isFloat ? floatSum + Number(intSum) : intSum;
}

function sortValues(values: Value[], desc: boolean, ctx: CallContext, keys: Value[] = values): Value[] {
  ctx.tick(values.length * Math.ceil(Math.log2(values.length + 1)));
  const order = values.map((_, i) => i);
  order.sort((i, j) => {
    const c = compare(keys[i]!, keys[j]!);
    if (c === undefined) ctx.fail(`cannot sort ${typeName(keys[i]!)} and ${typeName(keys[j]!)}`);
    return desc ? -c : c;
  });
  ctx.charge(values.length);
  return order.map((i) => values[i]!);
}

function sortOrder(v: Arg | undefined, ctx: CallContext): boolean {
  if (v === undefined || v === 'asc') return false;
  if (v === 'desc') return true;
  return ctx.fail('sort order must be "asc" or "desc"');
}

function flatten(v: Value[], out: Value[], ctx: CallContext, depth = 0): Value[] {
  if (depth > 100) ctx.fail('array nested too deeply');
  for (const x of v) {
    if (Array.isArray(x)) flatten(x, out, ctx, depth + 1);
    else out.push(x);
  }
  return out;
}

export function toText(v: Value): string {
  if (v === null) return '<nil>';
  if (typeof v === 'number') return formatFloat(v);
  if (Array.isArray(v)) return `[${v.map(toText).join(' ')}]`;
  if (isMap(v)) return `map[${Object.keys(v).sort().map((k) => `${k}:${toText(v[k]!)}`).join(' ')}]`;
  return String(v);
}

function formatFloat(v: number): string {
  if (Number.isInteger(v) && Math.abs(v) < 1e21) return String(v);
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (Number.isNaN(v)) return 'NaN';
  return String(v).replace(/e([+-])(\d)$/, 'e$10$2');
}

function roundHalfAway(v: number): number {
  return v < 0 ? -Math.round(-v) : Math.round(v);
}

function parseTime(text: string, ctx: CallContext): number {
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)) ctx.fail(`cannot parse ${JSON.stringify(text)} as a date (RFC 3339 or YYYY-MM-DD)`);
  let iso = text.replace(' ', 'T');
  if (/^\d{4}-\d{2}-\d{2}$/.test(iso)) iso += 'T00:00:00Z';
  else if (!/(Z|[+-]\d{2}:?\d{2})$/.test(iso)) iso += 'Z';
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? ctx.fail(`cannot parse ${JSON.stringify(text)} as a date`) : ms;
}

function zone(name: string, ctx: CallContext): Zone {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
  } catch {
    ctx.fail(`unknown time zone ${name}`);
  }
  return new Zone(name);
}

function jsonValue(v: unknown): Value {
  if (Array.isArray(v)) return v.map(jsonValue);
  if (v && typeof v === 'object') {
    const out = newMap();
    for (const [k, x] of Object.entries(v)) out[k] = jsonValue(x);
    return out;
  }
  return (v ?? null) as Value;
}

const predicateFn = (fn: (a: Value[], p: Predicate, ctx: CallContext, rest: Arg[]) => Value, max = 2): Builtin => ({
  min: 2,
  max,
  predicate: 1,
  fn: (args, ctx) => fn(arr(args[0]!, ctx), pred(args[1]!), ctx, args.slice(2)),
});

const bitwise = (f: (a: bigint, b: bigint) => bigint): Builtin => ({ min: 2, max: 2, fn: ([a, b], ctx) => wrap(f(int(a!, ctx), int(b!, ctx))) });

export const BUILTINS: Record<string, Builtin> = {
  // strings
  trim: { min: 1, max: 2, fn: ([s, c], ctx) => (c === undefined ? str(s!, ctx).trim() : cutset(str(s!, ctx), str(c, ctx), true, true)) },
  trimPrefix: { min: 2, max: 2, fn: ([s, p], ctx) => (str(s!, ctx).startsWith(str(p!, ctx)) ? (s as string).slice((p as string).length) : (s as string)) },
  trimSuffix: { min: 2, max: 2, fn: ([s, p], ctx) => (str(s!, ctx).endsWith(str(p!, ctx)) && (p as string).length ? (s as string).slice(0, -(p as string).length) : (s as string)) },
  upper: { min: 1, max: 1, fn: ([s], ctx) => str(s!, ctx).toUpperCase() },
  lower: { min: 1, max: 1, fn: ([s], ctx) => str(s!, ctx).toLowerCase() },
  split: { min: 2, max: 3, fn: ([s, sep, n], ctx) => splitN(str(s!, ctx), str(sep!, ctx), n === undefined ? -1 : smallInt(n, ctx), false, ctx) },
  splitAfter: { min: 2, max: 3, fn: ([s, sep, n], ctx) => splitN(str(s!, ctx), str(sep!, ctx), n === undefined ? -1 : smallInt(n, ctx), true, ctx) },
  replace: {
    min: 3,
    max: 3,
    fn: ([s, a, b], ctx) => {
      const out = str(s!, ctx).split(str(a!, ctx)).join(str(b!, ctx));
      ctx.charge(out.length / 4);
      return out;
    },
  },
  repeat: {
    min: 2,
    max: 2,
    fn: ([s, n], ctx) => {
      const count = int(n!, ctx);
      if (count < 0n) ctx.fail('negative repeat count');
      ctx.charge((str(s!, ctx).length * Number(count)) / 4);
      return (s as string).repeat(Number(count));
    },
  },
  join: { min: 1, max: 2, fn: ([a, sep], ctx) => arr(a!, ctx).map((x) => str(x, ctx, 'element')).join(sep === undefined ? '' : str(sep, ctx)) },
  indexOf: { min: 2, max: 2, fn: ([s, sub], ctx) => BigInt(str(s!, ctx).indexOf(str(sub!, ctx))) },
  lastIndexOf: { min: 2, max: 2, fn: ([s, sub], ctx) => BigInt(str(s!, ctx).lastIndexOf(str(sub!, ctx))) },
  hasPrefix: { min: 2, max: 2, fn: ([s, p], ctx) => str(s!, ctx).startsWith(str(p!, ctx)) },
  hasSuffix: { min: 2, max: 2, fn: ([s, p], ctx) => str(s!, ctx).endsWith(str(p!, ctx)) },

  // arrays
  all: predicateFn((a, p, ctx) => a.every((x, i) => bool(p(x, i), ctx))),
  any: predicateFn((a, p, ctx) => a.some((x, i) => bool(p(x, i), ctx))),
  none: predicateFn((a, p, ctx) => !a.some((x, i) => bool(p(x, i), ctx))),
  one: predicateFn((a, p, ctx) => a.filter((x, i) => bool(p(x, i), ctx)).length === 1),
  filter: predicateFn((a, p, ctx) => {
    const out = a.filter((x, i) => bool(p(x, i), ctx));
    ctx.charge(out.length);
    return out;
  }),
  map: predicateFn((a, p, ctx) => {
    ctx.charge(a.length);
    return a.map((x, i) => p(x, i));
  }),
  count: { min: 1, max: 2, predicate: 1, fn: ([a, p], ctx) => BigInt(arr(a!, ctx).filter((x, i) => bool(p ? pred(p)(x, i) : x, ctx)).length) },
  sum: { min: 1, max: 2, predicate: 1, fn: ([a, p], ctx) => sumOf(p ? arr(a!, ctx).map((x, i) => pred(p)(x, i)) : arr(a!, ctx), ctx) },
  find: predicateFn((a, p, ctx) => a.find((x, i) => bool(p(x, i), ctx)) ?? null),
  findIndex: predicateFn((a, p, ctx) => BigInt(a.findIndex((x, i) => bool(p(x, i), ctx)))),
  findLast: predicateFn((a, p, ctx) => {
    for (let i = a.length - 1; i >= 0; i--) if (bool(p(a[i]!, i), ctx)) return a[i]!;
    return null;
  }),
  findLastIndex: predicateFn((a, p, ctx) => {
    for (let i = a.length - 1; i >= 0; i--) if (bool(p(a[i]!, i), ctx)) return BigInt(i);
    return -1n;
  }),
  groupBy: predicateFn((a, p, ctx) => {
    const out = newMap();
    a.forEach((x, i) => {
      const k = keyOf(p(x, i), ctx);
      ((out[k] ??= []) as Value[]).push(x);
    });
    ctx.charge(a.length);
    return out;
  }),
  sortBy: predicateFn((a, p, ctx, [order]) => sortValues(a, sortOrder(order, ctx), ctx, a.map((x, i) => p(x, i))), 3),
  reduce: predicateFn((a, p, ctx, rest) => {
    let acc: Value;
    let start = 0;
    if (rest.length) acc = rest[0] as Value;
    else {
      if (!a.length) ctx.fail('reduce of empty array with no initial value');
      acc = a[0]!;
      start = 1;
    }
    for (let i = start; i < a.length; i++) acc = p(a[i]!, i, acc);
    return acc;
  }, 3),
  len: {
    min: 1,
    max: 1,
    fn: ([v], ctx) => {
      if (typeof v === 'string') {
        let n = 0;
        for (const _ of v) n++;
        return BigInt(n);
      }
      if (Array.isArray(v)) return BigInt(v.length);
      if (isMap(v as Value)) return BigInt(Object.keys(v as MapValue).length);
      return ctx.fail(`invalid argument for len (type ${argType(v!)})`);
    },
  },
  first: { min: 1, max: 1, fn: ([a], ctx) => arr(a!, ctx)[0] ?? null },
  last: { min: 1, max: 1, fn: ([a], ctx) => arr(a!, ctx).at(-1) ?? null },
  take: {
    min: 2,
    max: 2,
    fn: ([a, n], ctx) => {
      const count = int(n!, ctx);
      return copy(arr(a!, ctx).slice(0, count < 0n ? 0 : Number(count > 1_000_000_000n ? 1_000_000_000n : count)), ctx);
    },
  },
  reverse: { min: 1, max: 1, fn: ([a], ctx) => copy(arr(a!, ctx), ctx).reverse() },
  uniq: {
    min: 1,
    max: 1,
    fn: ([a], ctx) => {
      const out: Value[] = [];
      const seen = new Set<string>();
      const values = arr(a!, ctx);
      ctx.tick(values.length);
      for (const x of values) {
        if (x === null || typeof x !== 'object') {
          const key = isNumber(x) ? `n${toFloat(x)}` : `${typeof x}${String(x)}`;
          if (!seen.has(key)) out.push(x);
          seen.add(key);
        } else {
          ctx.tick(out.length);
          if (!out.some((y) => equal(x, y))) out.push(x);
        }
      }
      return out;
    },
  },
  concat: {
    min: 1,
    max: Infinity,
    fn: (args, ctx) => {
      const out = args.flatMap((a) => arr(a, ctx));
      ctx.charge(out.length);
      return out;
    },
  },
  flatten: {
    min: 1,
    max: 1,
    fn: ([a], ctx) => {
      const out = flatten(arr(a!, ctx), [], ctx);
      ctx.charge(out.length);
      return out;
    },
  },
  sort: {
    min: 1,
    max: 2,
    fn: ([a, order], ctx) => sortValues(arr(a!, ctx), sortOrder(order, ctx), ctx),
  },
  get: {
    min: 2,
    max: 2,
    fn: ([v, k]) => {
      if (Array.isArray(v) && isInt(k as Value)) {
        let i = Number(k);
        if (i < 0) i += v.length;
        return (v)[i] ?? null;
      }
      if (isMap(v as Value) && typeof k === 'string') return Object.hasOwn(v as MapValue, k) ? (v as MapValue)[k]! : null;
      return null;
    },
  },

  // maps
  keys: { min: 1, max: 1, fn: ([m], ctx) => copy(Object.keys(map(m!, ctx)), ctx) },
  values: { min: 1, max: 1, fn: ([m], ctx) => copy(Object.values(map(m!, ctx)), ctx) },
  toPairs: { min: 1, max: 1, fn: ([m], ctx) => copy(Object.entries(map(m!, ctx)), ctx).map(([k, v]) => [k, v]) },
  fromPairs: {
    min: 1,
    max: 1,
    fn: ([a], ctx) => {
      const out = newMap();
      for (const pair of arr(a!, ctx)) {
        if (!Array.isArray(pair) || pair.length !== 2) ctx.fail('fromPairs needs an array of [key, value] pairs');
        out[keyOf((pair as Value[])[0]!, ctx)] = (pair as Value[])[1]!;
      }
      return out;
    },
  },

  // numbers
  abs: {
    min: 1,
    max: 1,
    fn: ([v], ctx) => {
      const n = num(v!, ctx);
      return typeof n === 'bigint' ? (n < 0n ? wrap(-n) : n) : Math.abs(n);
    },
  },
  ceil: { min: 1, max: 1, fn: ([v], ctx) => Math.ceil(toFloat(num(v!, ctx))) },
  floor: { min: 1, max: 1, fn: ([v], ctx) => Math.floor(toFloat(num(v!, ctx))) },
  round: { min: 1, max: 1, fn: ([v], ctx) => roundHalfAway(toFloat(num(v!, ctx))) },
  max: { min: 1, max: Infinity, fn: (args, ctx) => extreme(flattenNumbers(args, ctx), 1, ctx) },
  min: { min: 1, max: Infinity, fn: (args, ctx) => extreme(flattenNumbers(args, ctx), -1, ctx) },
  mean: {
    min: 1,
    max: Infinity,
    fn: (args, ctx) => {
      const ns = flattenNumbers(args, ctx);
      return ns.length ? ns.reduce<number>((s, n) => s + toFloat(n), 0) / ns.length : 0;
    },
  },
  median: {
    min: 1,
    max: Infinity,
    fn: (args, ctx) => {
      const ns = flattenNumbers(args, ctx).map(toFloat);
      ctx.tick(ns.length * Math.ceil(Math.log2(ns.length + 1)));
      ns.sort((a, b) => a - b);
      if (!ns.length) return 0;
      const mid = ns.length >> 1;
      return ns.length % 2 ? ns[mid]! : (ns[mid - 1]! + ns[mid]!) / 2;
    },
  },

  // conversion
  type: { min: 1, max: 1, fn: ([v]) => argType(v!) },
  int: {
    min: 1,
    max: 1,
    fn: ([v], ctx) => {
      if (typeof v === 'bigint') return v;
      if (typeof v === 'number') return Number.isFinite(v) ? wrap(BigInt(Math.trunc(v))) : ctx.fail(`cannot convert ${formatFloat(v)} to int`);
      if (typeof v === 'string' && /^[+-]?\d+$/.test(v.trim())) {
        const n = BigInt(v.trim());
        if (n === wrap(n)) return n;
      }
      return ctx.fail(`invalid operation: int(${typeof v === 'string' ? JSON.stringify(v) : argType(v!)})`);
    },
  },
  float: {
    min: 1,
    max: 1,
    fn: ([v], ctx) => {
      if (isNumber(v as Value)) return toFloat(v as bigint | number);
      if (typeof v === 'string' && /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$|^[+-]?(Inf|NaN)$/i.test(v)) return Number(v.replace(/inf/i, 'Infinity'));
      return ctx.fail(`invalid operation: float(${typeof v === 'string' ? JSON.stringify(v) : argType(v!)})`);
    },
  },
  string: { min: 1, max: 1, fn: ([v]) => toText(v as Value) },
  toJSON: { min: 1, max: 1, fn: ([v]) => JSON.stringify(toPlain(v as Value), null, 2) ?? 'null' },
  fromJSON: {
    min: 1,
    max: 1,
    fn: ([s], ctx) => {
      const text = str(s!, ctx);
      ctx.charge(text.length / 4);
      try {
        return jsonValue(JSON.parse(text));
      } catch {
        return ctx.fail('invalid JSON');
      }
    },
  },
  toBase64: { min: 1, max: 1, fn: ([s], ctx) => Buffer.from(str(s!, ctx), 'utf8').toString('base64') },
  fromBase64: {
    min: 1,
    max: 1,
    fn: ([s], ctx) => {
      const text = str(s!, ctx);
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) ctx.fail('illegal base64 data');
      return Buffer.from(text, 'base64').toString('utf8');
    },
  },

  // dates (subset: see docs/filtering-rules.md)
  now: { min: 0, max: 0, fn: () => new Time(Date.now()) },
  duration: {
    min: 1,
    max: 1,
    fn: ([s], ctx) => {
      const n = parseDuration(str(s!, ctx));
      return n === undefined ? ctx.fail(`invalid duration ${JSON.stringify(s)}`) : new Duration(n);
    },
  },
  date: {
    min: 1,
    max: 3,
    fn: (args, ctx) => {
      if (args.length > 1) ctx.fail('date() with a layout is not supported; use an RFC 3339 string');
      return new Time(parseTime(str(args[0]!, ctx), ctx));
    },
  },
  timezone: { min: 1, max: 1, fn: ([s], ctx) => zone(str(s!, ctx), ctx) },

  // bitwise
  bitand: bitwise((a, b) => a & b),
  bitor: bitwise((a, b) => a | b),
  bitxor: bitwise((a, b) => a ^ b),
  bitnand: bitwise((a, b) => a & ~b),
  bitnot: { min: 1, max: 1, fn: ([a], ctx) => wrap(~int(a!, ctx)) },
  bitshl: bitwise((a, b) => (b < 0n ? fail('negative shift') : a << (b > 64n ? 64n : b))),
  bitshr: bitwise((a, b) => (b < 0n ? fail('negative shift') : a >> (b > 64n ? 64n : b))),
  bitushr: bitwise((a, b) => (b < 0n ? fail('negative shift') : BigInt.asUintN(64, a) >> (b > 64n ? 64n : b))),

  // extension
  cidr: {
    min: 1,
    max: 1,
    fn: ([s], ctx) => ctx.network(str(s!, ctx)) ?? ctx.fail(`invalid CIDR ${JSON.stringify(s)}`),
  },
};

function fail(message: string): never {
  throw new BuiltinFailure(message);
}

/** Thrown by a builtin without a context; the evaluator adds the position. */
export class BuiltinFailure extends Error {}

function extreme(ns: (bigint | number)[], sign: 1 | -1, ctx: CallContext): Value {
  if (!ns.length) return ctx.fail('not enough arguments');
  let best = ns[0]!;
  for (const n of ns) if (compare(n, best)! * sign > 0) best = n;
  return best;
}

export const BUILTIN_SIGNATURES: Record<string, { min: number; max: number; predicate?: number }> = BUILTINS;

/** Methods on time and duration values: `now().Year()`, `duration('1h').Minutes()`. */
export function callMethod(target: Value, name: string, args: Value[], ctx: CallContext): Value {
  if (target instanceof Time) {
    const d = new Date(target.ms);
    const parts = (): Record<string, number> => {
      const f = new Intl.DateTimeFormat('en-US', { timeZone: target.zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric', weekday: 'short' });
      const out: Record<string, number> = {};
      for (const p of f.formatToParts(d)) out[p.type] = p.type === 'weekday' ? ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(p.value) : Number(p.value);
      return out;
    };
    const other = (): Time => (args[0] instanceof Time ? args[0] : ctx.fail(`${name}() needs a time`));
    switch (name) {
      case 'Year':
        return BigInt(parts().year!);
      case 'Month':
        return BigInt(parts().month!);
      case 'Day':
        return BigInt(parts().day!);
      case 'Hour':
        return BigInt(parts().hour!);
      case 'Minute':
        return BigInt(parts().minute!);
      case 'Second':
        return BigInt(parts().second!);
      case 'Weekday':
        return BigInt(parts().weekday!);
      case 'Unix':
        return BigInt(Math.floor(target.ms / 1000));
      case 'UnixMilli':
        return BigInt(target.ms);
      case 'UTC':
        return new Time(target.ms);
      case 'In':
        return args[0] instanceof Zone ? new Time(target.ms, args[0].name) : ctx.fail('In() needs a timezone');
      case 'Before':
        return target.ms < other().ms;
      case 'After':
        return target.ms > other().ms;
      case 'Equal':
        return target.ms === other().ms;
      case 'Sub':
        return new Duration(BigInt(target.ms - other().ms) * 1_000_000n);
      case 'Add':
        return args[0] instanceof Duration ? new Time(target.ms + Number(args[0].nanos / 1_000_000n), target.zone) : ctx.fail('Add() needs a duration');
      case 'String':
        return target.toString();
    }
  }
  if (target instanceof Duration) {
    const n = Number(target.nanos);
    switch (name) {
      case 'Hours':
        return n / 3.6e12;
      case 'Minutes':
        return n / 6e10;
      case 'Seconds':
        return n / 1e9;
      case 'Milliseconds':
        return target.nanos / 1_000_000n;
      case 'Nanoseconds':
        return target.nanos;
      case 'String':
        return target.toString();
    }
  }
  if (target instanceof Network && name === 'Contains' && typeof args[0] === 'string') return target.contains(args[0]);
  return ctx.fail(`type ${typeName(target)} has no method ${name}`);
}

export { Opaque };
