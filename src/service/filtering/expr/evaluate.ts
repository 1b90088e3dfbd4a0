/**
 * Tree-walking evaluator. Bounded per evaluation: a step budget (every node visit and the work
 * of builtins counts), a wall-clock deadline, and a memory budget for built arrays and strings.
 */
import type { RE2JS } from 're2js';
import type { Node, NodeOf } from './ast.js';
import { BuiltinFailure, BUILTINS, callMethod, keyOf, type Arg, type CallContext, type Predicate } from './builtins.js';
import { ExprError, type Position } from './errors.js';
import { compare, Duration, equal, isInt, isMap, isNumber, Network, Time, toFloat, typeName, wrap, type MapValue, type Value } from './values.js';

export interface Limits {
  /** Node visits plus builtin work units. */
  maxSteps: number;
  /** Array elements built, plus string characters / 4. */
  maxMemory: number;
  /** Wall-clock bound of one evaluation. */
  timeoutMs: number;
}

export const DEFAULT_LIMITS: Limits = { maxSteps: 1_000_000, maxMemory: 1_000_000, timeoutMs: 100 };

/** What the evaluator needs from a compiled expression. */
export interface Program {
  root: Node;
  /** Calls and lists of literals folded at compile time (`cidr('10.0.0.0/8')`, `['a', 'b']`). */
  constants: Map<Node, Value>;
  /** RE2 patterns of `matches` with a literal right side, compiled once. */
  regexes: Map<Node, RE2JS>;
  /** Patterns seen at run time (bounded). */
  compileRegex(pattern: string, pos: Position): RE2JS;
  /** Networks of `cidr(...)` calls on values seen at run time, parsed once (bounded). */
  parseNetwork(text: string): Network | undefined;
}

interface Frame {
  element: Value;
  index: number;
  acc: Value | undefined;
}

interface Scope {
  parent: Scope | null;
  name?: string;
  value?: Value;
  frame?: Frame;
}

/** The value of an optional chain cut short by `?.` on nil. */
const SHORT = Symbol('short');
type Result = Value | typeof SHORT;

export function run(program: Program, env: MapValue, limits: Limits = DEFAULT_LIMITS): Value {
  const evaluation = new Evaluation(program, env, limits);
  try {
    const v = evaluation.eval(program.root, null);
    return v === SHORT ? null : v;
  } catch (e) {
    if (e instanceof RangeError) throw new ExprError(`evaluation failed: ${e.message}`, program.root.pos);
    throw e;
  }
}

class Evaluation {
  private steps = 0;
  private memory = 0;
  private readonly deadline: number;

  constructor(
    private readonly program: Program,
    private readonly env: MapValue,
    private readonly limits: Limits,
  ) {
    this.deadline = Date.now() + limits.timeoutMs;
  }

  tick(units: number, pos: Position): void {
    const before = this.steps;
    this.steps += units;
    if (this.steps > this.limits.maxSteps) throw new ExprError(`evaluation exceeded the step budget (${this.limits.maxSteps})`, pos);
    if (before >>> 10 !== this.steps >>> 10 && Date.now() > this.deadline) throw new ExprError(`evaluation exceeded the time budget (${this.limits.timeoutMs} ms)`, pos);
  }

  charge(units: number, pos: Position): void {
    this.memory += units;
    if (this.memory > this.limits.maxMemory) throw new ExprError(`evaluation exceeded the memory budget (${this.limits.maxMemory} elements)`, pos);
  }

  eval(node: Node, scope: Scope | null): Result {
    this.tick(1, node.pos);
    switch (node.kind) {
      case 'literal':
        return node.value as Value;
      case 'ident':
        return this.lookup(node, scope);
      case 'env':
        return this.env;
      case 'pointer':
        return this.pointer(node, scope);
      case 'array': {
        const constant = this.program.constants.get(node);
        if (constant !== undefined) return constant;
        this.charge(node.items.length, node.pos);
        return node.items.map((item) => this.value(item, scope));
      }
      case 'map': {
        const out = Object.create(null) as MapValue;
        this.charge(node.entries.length, node.pos);
        for (const { key, value } of node.entries) out[keyOf(this.value(key, scope), this.context(key.pos))] = this.value(value, scope);
        return out;
      }
      case 'unary':
        return this.unary(node, scope);
      case 'binary':
        return this.binary(node, scope);
      case 'chainCompare': {
        let left = this.value(node.operands[0]!, scope);
        for (let i = 0; i < node.ops.length; i++) {
          const right = this.value(node.operands[i + 1]!, scope);
          if (!ordered(node.ops[i]!, left, right, node.pos)) return false;
          left = right;
        }
        return true;
      }
      case 'member':
        return this.member(node, scope);
      case 'slice':
        return this.slice(node, scope);
      case 'call':
        return this.call(node, scope);
      case 'method': {
        const target = this.eval(node.object, scope);
        if (target === SHORT) return SHORT;
        const args = node.args.map((a) => this.value(a, scope));
        return this.guard(node.pos, () => callMethod(target, node.name, args, this.context(node.pos)));
      }
      case 'optionalChain': {
        const v = this.eval(node.body, scope);
        return v === SHORT ? null : v;
      }
      case 'closure':
        throw new ExprError('a predicate can only be an argument of a builtin', node.pos);
      case 'conditional':
        return this.eval(this.bool(this.value(node.test, scope), node.test.pos, 'condition') ? node.then : node.otherwise, scope);
      case 'elvis': {
        const test = this.value(node.test, scope);
        return test === null || test === false ? this.eval(node.otherwise, scope) : test;
      }
      case 'let':
        return this.eval(node.body, { parent: scope, name: node.name, value: this.value(node.value, scope) });
      case 'sequence': {
        let last: Result = null;
        for (const item of node.items) last = this.eval(item, scope);
        return last;
      }
    }
  }

  private value(node: Node, scope: Scope | null): Value {
    const v = this.eval(node, scope);
    return v === SHORT ? null : v;
  }

  private bool(v: Value, pos: Position, what: string): boolean {
    if (typeof v !== 'boolean') throw new ExprError(`${what} must be a bool, got ${typeName(v)}`, pos);
    return v;
  }

  private context(pos: Position): CallContext {
    return new PositionedContext(this, pos);
  }

  parseNetwork(text: string): Network | undefined {
    return this.program.parseNetwork(text);
  }

  private guard<T>(pos: Position, f: () => T): T {
    try {
      return f();
    } catch (e) {
      if (e instanceof BuiltinFailure) throw new ExprError(e.message, pos);
      throw e;
    }
  }

  private lookup(node: NodeOf<'ident'>, scope: Scope | null): Value {
    for (let s = scope; s; s = s.parent) if (s.name === node.name) return s.value!;
    if (Object.hasOwn(this.env, node.name)) return this.env[node.name] ?? null;
    throw new ExprError(`unknown name ${node.name}`, node.pos);
  }

  private pointer(node: NodeOf<'pointer'>, scope: Scope | null): Value {
    for (let s = scope; s; s = s.parent) {
      if (!s.frame) continue;
      if (node.name === '') return s.frame.element;
      if (node.name === 'index') return BigInt(s.frame.index);
      return s.frame.acc ?? null;
    }
    throw new ExprError('cannot use pointer accessor outside predicate', node.pos);
  }

  private member(node: NodeOf<'member'>, scope: Scope | null): Result {
    const object = this.eval(node.object, scope);
    if (object === SHORT) return SHORT;
    if (object === null && node.optional) return SHORT;
    const key = this.value(node.property, scope);
    if (object === null) throw new ExprError(`cannot fetch ${typeof key === 'string' ? key : typeName(key)} from nil`, node.pos);
    if (Array.isArray(object)) {
      if (!isInt(key)) throw new ExprError(`array index must be an int, got ${typeName(key)}`, node.property.pos);
      const i = key < 0n ? key + BigInt(object.length) : key;
      if (i < 0n || i >= BigInt(object.length)) throw new ExprError(`index out of range: ${key} (array length is ${object.length})`, node.property.pos);
      return object[Number(i)]!;
    }
    if (typeof object === 'string') {
      this.charge(object.length / 4, node.pos);
      if (!isInt(key)) throw new ExprError(`string index must be an int, got ${typeName(key)}`, node.property.pos);
      const chars = [...object];
      const i = key < 0n ? key + BigInt(chars.length) : key;
      if (i < 0n || i >= BigInt(chars.length)) throw new ExprError(`index out of range: ${key} (string length is ${chars.length})`, node.property.pos);
      return chars[Number(i)]!;
    }
    if (isMap(object)) {
      const k = typeof key === 'string' ? key : keyOf(key, this.context(node.property.pos));
      return Object.hasOwn(object, k) ? (object[k] ?? null) : null;
    }
    throw new ExprError(`cannot fetch ${typeof key === 'string' ? key : typeName(key)} from ${typeName(object)}`, node.pos);
  }

  private slice(node: NodeOf<'slice'>, scope: Scope | null): Result {
    const object = this.eval(node.object, scope);
    if (object === SHORT) return SHORT;
    if (typeof object === 'string') this.charge(object.length / 4, node.pos);
    const chars = typeof object === 'string' ? [...object] : undefined;
    const items = Array.isArray(object) ? object : undefined;
    const length = chars?.length ?? items?.length;
    if (length === undefined) throw new ExprError(`cannot slice ${typeName(object)}`, node.pos);
    const bound = (n: Node | null, dflt: number): number => {
      if (!n) return dflt;
      const v = this.value(n, scope);
      if (!isInt(v)) throw new ExprError(`slice index must be an int, got ${typeName(v)}`, n.pos);
      let i = v < 0n ? v + BigInt(length) : v;
      if (i < 0n) i = 0n;
      if (i > BigInt(length)) i = BigInt(length);
      return Number(i);
    };
    const from = bound(node.from, 0);
    const to = Math.max(from, bound(node.to, length));
    this.charge(to - from, node.pos);
    return chars ? chars.slice(from, to).join('') : items!.slice(from, to);
  }

  private call(node: NodeOf<'call'>, scope: Scope | null): Value {
    const constant = this.program.constants.get(node);
    if (constant !== undefined) return constant;
    const builtin = BUILTINS[node.callee];
    if (!builtin) throw new ExprError(`unknown func ${node.callee}`, node.pos);
    const args: Arg[] = node.args.map((arg) => {
      if (arg.kind !== 'closure') return this.value(arg, scope);
      const predicate: Predicate = (element, index, acc) => this.value(arg.body, { parent: scope, frame: { element, index, acc } });
      return predicate;
    });
    return this.guard(node.pos, () => builtin.fn(args, this.context(node.pos)));
  }

  private unary(node: NodeOf<'unary'>, scope: Scope | null): Value {
    const v = this.value(node.operand, scope);
    if (node.op === 'not') return !this.bool(v, node.operand.pos, 'operand of not');
    if (isInt(v)) return node.op === '-' ? wrap(-v) : v;
    if (typeof v === 'number') return node.op === '-' ? -v : v;
    if (v instanceof Duration && node.op === '-') return new Duration(wrap(-v.nanos));
    throw new ExprError(`invalid operation: ${node.op} (mismatched type ${typeName(v)})`, node.pos);
  }

  private binary(node: NodeOf<'binary'>, scope: Scope | null): Value {
    const { op, pos } = node;
    switch (op) {
      case 'and':
      case '&&':
        return this.bool(this.value(node.left, scope), node.left.pos, `left operand of ${op}`) && this.bool(this.value(node.right, scope), node.right.pos, `right operand of ${op}`);
      case 'or':
      case '||':
        return this.bool(this.value(node.left, scope), node.left.pos, `left operand of ${op}`) || this.bool(this.value(node.right, scope), node.right.pos, `right operand of ${op}`);
      case '??': {
        const left = this.value(node.left, scope);
        return left === null ? this.value(node.right, scope) : left;
      }
    }
    const left = this.value(node.left, scope);
    const right = this.value(node.right, scope);
    switch (op) {
      case '==':
        return equal(left, right);
      case '!=':
        return !equal(left, right);
      case '<':
      case '>':
      case '<=':
      case '>=':
        return ordered(op, left, right, pos);
      case 'in':
        return this.membership(left, right, pos) !== node.negate;
      case 'matches':
        if (left === null || right === null) return false;
        if (typeof left !== 'string' || typeof right !== 'string') throw mismatch(op, left, right, pos);
        return (this.program.regexes.get(node.right) ?? this.program.compileRegex(right, node.right.pos)).test(left) !== node.negate;
      case 'contains':
      case 'startsWith':
      case 'endsWith': {
        if (left === null || right === null) return false;
        if (typeof left !== 'string' || typeof right !== 'string') throw mismatch(op, left, right, pos);
        const r = op === 'contains' ? left.includes(right) : op === 'startsWith' ? left.startsWith(right) : left.endsWith(right);
        return r !== node.negate;
      }
      case '..': {
        if (!isInt(left) || !isInt(right)) throw mismatch(op, left, right, pos);
        if (right < left) return [];
        const n = right - left + 1n;
        this.charge(n > BigInt(this.limits.maxMemory) ? this.limits.maxMemory + 1 : Number(n), pos);
        this.tick(Number(n), pos);
        const out: Value[] = new Array<Value>(Number(n));
        for (let i = 0; i < out.length; i++) out[i] = left + BigInt(i);
        return out;
      }
    }
    if (op === '+' && typeof left === 'string' && typeof right === 'string') {
      this.charge((left.length + right.length) / 4, pos);
      return left + right;
    }
    return arithmetic(op, left, right, pos);
  }

  private membership(left: Value, right: Value, pos: Position): boolean {
    if (Array.isArray(right)) {
      this.tick(right.length, pos);
      return right.some((x) => equal(left, x));
    }
    if (right instanceof Network) {
      if (typeof left !== 'string') throw mismatch('in', left, right, pos);
      return right.contains(left);
    }
    if (isMap(right)) {
      if (left === null || typeof left === 'object') throw mismatch('in', left, right, pos);
      return Object.hasOwn(right, typeof left === 'string' ? left : keyOf(left, this.context(pos)));
    }
    if (right === null) return false;
    throw mismatch('in', left, right, pos);
  }
}

/** What a builtin sees of the evaluation, charged and failing at the position of its call. */
class PositionedContext implements CallContext {
  constructor(
    private readonly evaluation: Evaluation,
    private readonly pos: Position,
  ) {}

  charge(units: number): void {
    this.evaluation.charge(units, this.pos);
  }

  tick(units: number): void {
    this.evaluation.tick(units, this.pos);
  }

  network(text: string): Network | undefined {
    return this.evaluation.parseNetwork(text);
  }

  fail(message: string): never {
    throw new ExprError(message, this.pos);
  }
}

function mismatch(op: string, left: Value, right: Value, pos: Position): ExprError {
  return new ExprError(`invalid operation: ${op} (mismatched types ${typeName(left)} and ${typeName(right)})`, pos);
}

function ordered(op: string, left: Value, right: Value, pos: Position): boolean {
  const c = compare(left, right);
  if (c === undefined) throw mismatch(op, left, right, pos);
  switch (op) {
    case '<':
      return c < 0;
    case '>':
      return c > 0;
    case '<=':
      return c <= 0;
    default:
      return c >= 0;
  }
}

function arithmetic(op: string, a: Value, b: Value, pos: Position): Value {
  if (isNumber(a) && isNumber(b)) {
    const ints = typeof a === 'bigint' && typeof b === 'bigint';
    switch (op) {
      case '+':
        return ints ? wrap(a + b) : toFloat(a) + toFloat(b);
      case '-':
        return ints ? wrap(a - b) : toFloat(a) - toFloat(b);
      case '*':
        return ints ? wrap(a * b) : toFloat(a) * toFloat(b);
      case '/':
        return toFloat(a) / toFloat(b);
      case '%':
        if (!ints) throw mismatch(op, a, b, pos);
        if (b === 0n) throw new ExprError('integer divide by zero', pos);
        return wrap(a % b);
      case '**':
      case '^':
        return Math.pow(toFloat(a), toFloat(b));
    }
  }
  if (op === '+' && typeof a === 'string' && typeof b === 'string') return a + b;
  if (a instanceof Time && b instanceof Duration && (op === '+' || op === '-')) return new Time(a.ms + (op === '+' ? 1 : -1) * Number(b.nanos / 1_000_000n), a.zone);
  if (a instanceof Duration && b instanceof Time && op === '+') return new Time(b.ms + Number(a.nanos / 1_000_000n), b.zone);
  if (a instanceof Time && b instanceof Time && op === '-') return new Duration(BigInt(a.ms - b.ms) * 1_000_000n);
  if (a instanceof Duration && b instanceof Duration && (op === '+' || op === '-')) return new Duration(wrap(op === '+' ? a.nanos + b.nanos : a.nanos - b.nanos));
  throw mismatch(op, a, b, pos);
}
