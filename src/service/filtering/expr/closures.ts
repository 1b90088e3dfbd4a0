/**
 * Compiles a syntax tree once into a tree of JS closures, one per node, so that an evaluation
 * dispatches on nothing at run time and what is known at compile time is decided then: a
 * literal property name, a literal list or network right of `in`, a literal pattern, the slot
 * of a `let` name or predicate frame. Every node still counts one step when it runs, in the
 * order of a tree walk, so the budgets and the positions of their errors do not change.
 */
import type { Node, NodeOf } from './ast.js';
import { BuiltinFailure, BUILTINS, callMethod, keyOf, type Arg, type Predicate } from './builtins.js';
import { ExprError, type Position } from './errors.js';
import type { Evaluation } from './evaluation.js';
import type { Pattern } from './literal-patterns.js';
import { arithmetic, mismatch, ordered } from './operators.js';
import { children } from './parser.js';
import { Duration, equal, isInt, isMap, Network, typeName, wrap, type MapValue, type Value } from './values.js';

/** The value of an optional chain cut short by `?.` on nil. */
export const SHORT = Symbol('short');
type Result = Value | typeof SHORT;
export type Code = (ev: Evaluation) => Result;
type ValueCode = (ev: Evaluation) => Value;

/** What compile() (index.ts) found in the tree before it is turned into closures. */
export interface Tables {
  /** Calls and lists of literals folded at compile time (`cidr('10.0.0.0/8')`, `['a', 'b']`). */
  constants: Map<Node, Value>;
  /** RE2 patterns of `matches` with a literal right side, compiled once. */
  regexes: Map<Node, Pattern>;
  /** Patterns seen at run time (bounded). */
  compileRegex(pattern: string, pos: Position): Pattern;
  /**
   * Dotted names (`http.request.ip`) that a run may also be given in a flat record
   * (Evaluation.flat): a path spelled out in full is then read there with one lookup, instead
   * of member by member through the nested environment.
   */
  flatNames?: ReadonlySet<string>;
}

/** A name visible at a node (`let`), or a predicate frame (name null): where its value lives. */
interface Binding {
  parent: Binding | null;
  name: string | null;
  slot: number;
}

export function compileTree(root: Node, tables: Tables): { code: Code; slotCount: number } {
  const compiler = new Compiler(tables);
  const code = compiler.code(root, null);
  return { code, slotCount: compiler.slotCount };
}

const STRING_TESTS: Record<string, (s: string, t: string) => boolean> = {
  contains: (s, t) => s.includes(t),
  startsWith: (s, t) => s.startsWith(t),
  endsWith: (s, t) => s.endsWith(t),
};

class Compiler {
  slotCount = 0;

  constructor(private readonly tables: Tables) {}

  code(node: Node, scope: Binding | null): Code {
    const pos = node.pos;
    switch (node.kind) {
      case 'literal': {
        const value = node.value as Value;
        return (ev) => {
          ev.tick(1, pos);
          return value;
        };
      }
      case 'ident':
        return this.ident(node, scope);
      case 'env':
        return (ev) => {
          ev.tick(1, pos);
          return ev.env;
        };
      case 'pointer':
        return this.pointer(node, scope);
      case 'array':
        return this.array(node, scope);
      case 'map':
        return this.map(node, scope);
      case 'unary':
        return this.unary(node, scope);
      case 'binary':
        return this.binary(node, scope);
      case 'chainCompare':
        return this.chainCompare(node, scope);
      case 'member':
        return this.member(node, scope);
      case 'slice':
        return this.slice(node, scope);
      case 'call':
        return this.call(node, scope);
      case 'method':
        return this.method(node, scope);
      case 'optionalChain': {
        const body = this.code(node.body, scope);
        return (ev) => {
          ev.tick(1, pos);
          const v = body(ev);
          return v === SHORT ? null : v;
        };
      }
      case 'closure':
        return (ev) => {
          ev.tick(1, pos);
          throw new ExprError('a predicate can only be an argument of a builtin', pos);
        };
      case 'conditional': {
        const test = this.value(node.test, scope);
        const then = this.code(node.then, scope);
        const otherwise = this.code(node.otherwise, scope);
        const testPos = node.test.pos;
        return (ev) => {
          ev.tick(1, pos);
          return bool(test(ev), testPos, 'condition') ? then(ev) : otherwise(ev);
        };
      }
      case 'elvis': {
        const test = this.value(node.test, scope);
        const otherwise = this.code(node.otherwise, scope);
        return (ev) => {
          ev.tick(1, pos);
          const v = test(ev);
          return v === null || v === false ? otherwise(ev) : v;
        };
      }
      case 'let': {
        const slot = this.slotCount++;
        const value = this.value(node.value, scope);
        const body = this.code(node.body, { parent: scope, name: node.name, slot });
        return (ev) => {
          ev.tick(1, pos);
          ev.slots[slot] = value(ev);
          return body(ev);
        };
      }
      case 'sequence': {
        const items = node.items.map((item) => this.code(item, scope));
        return (ev) => {
          ev.tick(1, pos);
          let last: Result = null;
          for (let i = 0; i < items.length; i++) last = items[i]!(ev);
          return last;
        };
      }
    }
  }

  /** The code of a node whose value is used: a chain cut short is nil. */
  private value(node: Node, scope: Binding | null): ValueCode {
    const code = this.code(node, scope);
    if (!mayCutShort(node)) return code as ValueCode;
    return (ev) => {
      const v = code(ev);
      return v === SHORT ? null : v;
    };
  }

  private ident(node: NodeOf<'ident'>, scope: Binding | null): Code {
    const { name, pos } = node;
    for (let s = scope; s; s = s.parent) {
      if (s.name !== name) continue;
      const slot = s.slot;
      return (ev) => {
        ev.tick(1, pos);
        return ev.slots[slot] as Value;
      };
    }
    return (ev) => {
      ev.tick(1, pos);
      const env = ev.env;
      if (Object.hasOwn(env, name)) return env[name] ?? null;
      throw new ExprError(`unknown name ${name}`, pos);
    };
  }

  private pointer(node: NodeOf<'pointer'>, scope: Binding | null): Code {
    const pos = node.pos;
    let frame = scope;
    while (frame && frame.name !== null) frame = frame.parent;
    if (!frame) {
      return (ev) => {
        ev.tick(1, pos);
        throw new ExprError('cannot use pointer accessor outside predicate', pos);
      };
    }
    const slot = frame.slot;
    if (node.name === '') {
      return (ev) => {
        ev.tick(1, pos);
        return ev.slots[slot] as Value;
      };
    }
    if (node.name === 'index') {
      return (ev) => {
        ev.tick(1, pos);
        return BigInt(ev.slots[slot + 1] as number);
      };
    }
    return (ev) => {
      ev.tick(1, pos);
      return (ev.slots[slot + 2] as Value | undefined) ?? null;
    };
  }

  /** A predicate argument `{ ... }`: its frame takes three slots (`#`, `#index`, `#acc`). */
  private predicate(node: NodeOf<'closure'>, scope: Binding | null): (ev: Evaluation) => Predicate {
    const slot = this.slotCount;
    this.slotCount += 3;
    const body = this.value(node.body, { parent: scope, name: null, slot });
    return (ev) => (element, index, acc) => {
      const at = ev.at;
      const slots = ev.slots;
      slots[slot] = element;
      slots[slot + 1] = index;
      slots[slot + 2] = acc;
      const v = body(ev);
      // The body may call builtins; the builtin that called the predicate goes on at its own position.
      ev.at = at;
      return v;
    };
  }

  private array(node: NodeOf<'array'>, scope: Binding | null): Code {
    const pos = node.pos;
    const constant = this.tables.constants.get(node);
    if (constant !== undefined) {
      return (ev) => {
        ev.tick(1, pos);
        return constant;
      };
    }
    const items = node.items.map((item) => this.value(item, scope));
    return (ev) => {
      ev.tick(1, pos);
      ev.charge(items.length, pos);
      const out = new Array<Value>(items.length);
      for (let i = 0; i < items.length; i++) out[i] = items[i]!(ev);
      return out;
    };
  }

  private map(node: NodeOf<'map'>, scope: Binding | null): Code {
    const pos = node.pos;
    const entries = node.entries.map(({ key, value }) => ({ key: this.value(key, scope), keyPos: key.pos, value: this.value(value, scope) }));
    return (ev) => {
      ev.tick(1, pos);
      const out = Object.create(null) as MapValue;
      ev.charge(entries.length, pos);
      for (const { key, keyPos, value } of entries) out[keyAt(ev, key(ev), keyPos)] = value(ev);
      return out;
    };
  }

  private unary(node: NodeOf<'unary'>, scope: Binding | null): Code {
    const { op, pos } = node;
    const operand = this.value(node.operand, scope);
    if (op === 'not') {
      const operandPos = node.operand.pos;
      return (ev) => {
        ev.tick(1, pos);
        return !bool(operand(ev), operandPos, 'operand of not');
      };
    }
    return (ev) => {
      ev.tick(1, pos);
      const v = operand(ev);
      if (isInt(v)) return op === '-' ? wrap(-v) : v;
      if (typeof v === 'number') return op === '-' ? -v : v;
      if (v instanceof Duration && op === '-') return new Duration(wrap(-v.nanos));
      throw new ExprError(`invalid operation: ${op} (mismatched type ${typeName(v)})`, pos);
    };
  }

  private binary(node: NodeOf<'binary'>, scope: Binding | null): Code {
    const { op, pos, negate } = node;
    const left = this.value(node.left, scope);
    const right = this.value(node.right, scope);
    const leftPos = node.left.pos;
    const rightPos = node.right.pos;
    switch (op) {
      case 'and':
      case '&&': {
        const leftWhat = `left operand of ${op}`;
        const rightWhat = `right operand of ${op}`;
        return (ev) => {
          ev.tick(1, pos);
          return bool(left(ev), leftPos, leftWhat) && bool(right(ev), rightPos, rightWhat);
        };
      }
      case 'or':
      case '||': {
        const leftWhat = `left operand of ${op}`;
        const rightWhat = `right operand of ${op}`;
        return (ev) => {
          ev.tick(1, pos);
          return bool(left(ev), leftPos, leftWhat) || bool(right(ev), rightPos, rightWhat);
        };
      }
      case '??':
        return (ev) => {
          ev.tick(1, pos);
          const l = left(ev);
          return l === null ? right(ev) : l;
        };
      case '==':
        return (ev) => {
          ev.tick(1, pos);
          return equal(left(ev), right(ev));
        };
      case '!=':
        return (ev) => {
          ev.tick(1, pos);
          return !equal(left(ev), right(ev));
        };
      case '<':
      case '>':
      case '<=':
      case '>=':
        return (ev) => {
          ev.tick(1, pos);
          return ordered(op, left(ev), right(ev), pos);
        };
      case 'in':
        return this.membership(node, left, right);
      case 'matches': {
        const regex = this.tables.regexes.get(node.right);
        const tables = this.tables;
        return (ev) => {
          ev.tick(1, pos);
          const l = left(ev);
          const r = right(ev);
          if (l === null || r === null) return false;
          if (typeof l !== 'string' || typeof r !== 'string') throw mismatch(op, l, r, pos);
          return (regex ?? tables.compileRegex(r, rightPos)).test(l) !== negate;
        };
      }
      case 'contains':
      case 'startsWith':
      case 'endsWith': {
        const test = STRING_TESTS[op]!;
        return (ev) => {
          ev.tick(1, pos);
          const l = left(ev);
          const r = right(ev);
          if (l === null || r === null) return false;
          if (typeof l !== 'string' || typeof r !== 'string') throw mismatch(op, l, r, pos);
          return test(l, r) !== negate;
        };
      }
      case '..':
        return (ev) => {
          ev.tick(1, pos);
          return range(ev, left(ev), right(ev), pos);
        };
    }
    return (ev) => {
      ev.tick(1, pos);
      const l = left(ev);
      const r = right(ev);
      if (op === '+' && typeof l === 'string' && typeof r === 'string') {
        ev.charge((l.length + r.length) / 4, pos);
        return l + r;
      }
      return arithmetic(op, l, r, pos);
    };
  }

  /** `in`: a network or a list of strings known at compile time is tested directly. */
  private membership(node: NodeOf<'binary'>, left: ValueCode, right: ValueCode): Code {
    const { pos, negate } = node;
    const constant = this.tables.constants.get(node.right);
    if (constant instanceof Network) {
      return (ev) => {
        ev.tick(1, pos);
        const l = left(ev);
        right(ev);
        if (typeof l !== 'string') throw mismatch('in', l, constant, pos);
        return constant.contains(l) !== negate;
      };
    }
    if (Array.isArray(constant) && constant.every((x) => typeof x === 'string')) {
      // Only a string equals a string: a Set gives the answer of comparing with each element.
      const strings = new Set(constant);
      const length = constant.length;
      return (ev) => {
        ev.tick(1, pos);
        const l = left(ev);
        right(ev);
        ev.tick(length, pos);
        return (typeof l === 'string' && strings.has(l)) !== negate;
      };
    }
    return (ev) => {
      ev.tick(1, pos);
      const l = left(ev);
      return contains(ev, l, right(ev), pos) !== negate;
    };
  }

  private chainCompare(node: NodeOf<'chainCompare'>, scope: Binding | null): Code {
    const { ops, pos } = node;
    const operands = node.operands.map((operand) => this.value(operand, scope));
    return (ev) => {
      ev.tick(1, pos);
      let left = operands[0]!(ev);
      for (let i = 0; i < ops.length; i++) {
        const right = operands[i + 1]!(ev);
        if (!ordered(ops[i]!, left, right, pos)) return false;
        left = right;
      }
      return true;
    };
  }

  private member(node: NodeOf<'member'>, scope: Binding | null): Code {
    const generic = this.memberOfAny(node, scope);
    const path = this.tables.flatNames && flatPath(node, scope);
    if (!path || !this.tables.flatNames!.has(path.name)) return generic;
    const { name, positions } = path;
    return (ev) => {
      const flat = ev.flat;
      if (flat === undefined) return generic(ev);
      // The steps the member-by-member walk would count, in its order (budgets and error positions unchanged).
      ev.tickEach(positions);
      const v = (flat as Record<string, Value | undefined>)[name];
      return v === undefined ? null : v;
    };
  }

  private memberOfAny(node: NodeOf<'member'>, scope: Binding | null): Code {
    const { pos, optional, property } = node;
    const object = this.code(node.object, scope);
    if (property.kind === 'literal' && typeof property.value === 'string') {
      // `a.b` or `a['b']`: the name is known; its literal node only counts its step.
      const name = property.value;
      const namePos = property.pos;
      return (ev) => {
        ev.tick(1, pos);
        const o = object(ev);
        if (o === SHORT || (o === null && optional)) return SHORT;
        ev.tick(1, namePos);
        if (isMap(o)) return Object.hasOwn(o, name) ? (o[name] ?? null) : null;
        return fetch(ev, o, name, node);
      };
    }
    const key = this.value(property, scope);
    return (ev) => {
      ev.tick(1, pos);
      const o = object(ev);
      if (o === SHORT || (o === null && optional)) return SHORT;
      return fetch(ev, o, key(ev), node);
    };
  }

  private slice(node: NodeOf<'slice'>, scope: Binding | null): Code {
    const pos = node.pos;
    const object = this.code(node.object, scope);
    const from = node.from && { code: this.value(node.from, scope), pos: node.from.pos };
    const to = node.to && { code: this.value(node.to, scope), pos: node.to.pos };
    return (ev) => {
      ev.tick(1, pos);
      const o = object(ev);
      if (o === SHORT) return SHORT;
      if (typeof o === 'string') ev.charge(o.length / 4, pos);
      const chars = typeof o === 'string' ? [...o] : undefined;
      const items = Array.isArray(o) ? o : undefined;
      const length = chars?.length ?? items?.length;
      if (length === undefined) throw new ExprError(`cannot slice ${typeName(o)}`, pos);
      const bound = (b: { code: ValueCode; pos: Position } | null, dflt: number): number => {
        if (!b) return dflt;
        const v = b.code(ev);
        if (!isInt(v)) throw new ExprError(`slice index must be an int, got ${typeName(v)}`, b.pos);
        let i = v < 0n ? v + BigInt(length) : v;
        if (i < 0n) i = 0n;
        if (i > BigInt(length)) i = BigInt(length);
        return Number(i);
      };
      const start = bound(from, 0);
      const end = Math.max(start, bound(to, length));
      ev.charge(end - start, pos);
      return chars ? chars.slice(start, end).join('') : items!.slice(start, end);
    };
  }

  private call(node: NodeOf<'call'>, scope: Binding | null): Code {
    const pos = node.pos;
    const constant = this.tables.constants.get(node);
    if (constant !== undefined) {
      return (ev) => {
        ev.tick(1, pos);
        return constant;
      };
    }
    const overNetworks = this.networkListTest(node, scope);
    if (overNetworks) return overNetworks;
    const builtin = BUILTINS[node.callee];
    if (!builtin) {
      return (ev) => {
        ev.tick(1, pos);
        throw new ExprError(`unknown func ${node.callee}`, pos);
      };
    }
    const args = node.args.map((arg): ((ev: Evaluation) => Arg) => (arg.kind === 'closure' ? this.predicate(arg, scope) : this.value(arg, scope)));
    return (ev) => {
      ev.tick(1, pos);
      const values = new Array<Arg>(args.length);
      for (let i = 0; i < args.length; i++) values[i] = args[i]!(ev);
      ev.at = pos;
      try {
        return builtin.fn(values, ev);
      } catch (e) {
        throw positioned(e, pos);
      }
    };
  }

  /**
   * `any(['10.0.0.0/8', ...], <address> in cidr(#))` (or all, none), the usual way to list
   * networks: the networks are parsed once, and no predicate frame or builtin call is made per
   * element. Each element counts the steps the general path counts (`in`, the address, `cidr`,
   * `#`), in its order; the address is evaluated for each element as there.
   */
  private networkListTest(node: NodeOf<'call'>, scope: Binding | null): Code | undefined {
    const combine = NETWORK_LIST_TESTS.get(node.callee);
    const [list, predicate] = node.args;
    if (!combine || node.args.length !== 2 || predicate?.kind !== 'closure') return undefined;
    const texts = this.tables.constants.get(list!);
    const body = predicate.body;
    if (!Array.isArray(texts) || body.kind !== 'binary' || body.op !== 'in' || body.right.kind !== 'call') return undefined;
    const cidr = body.right;
    const pointer = cidr.args[0];
    if (cidr.callee !== 'cidr' || cidr.args.length !== 1 || pointer?.kind !== 'pointer' || pointer.name !== '' || usesPredicateFrame(body.left)) return undefined;
    const networks = texts.map((t) => (typeof t === 'string' ? Network.parse(t) : undefined));
    // A list with something that is not a network fails on the general path, with its errors.
    if (!networks.every((n) => n !== undefined)) return undefined;
    const { pos, negate } = body;
    const [callPos, listPos, cidrPos, pointerPos] = [node.pos, list!.pos, cidr.pos, pointer.pos];
    const address = this.value(body.left, scope);
    const test = (ev: Evaluation, network: Network): boolean => {
      ev.tick(1, pos);
      const l = address(ev);
      ev.tick(1, cidrPos);
      ev.tick(1, pointerPos);
      if (typeof l !== 'string') throw mismatch('in', l, network, pos);
      return network.contains(l) !== negate;
    };
    return (ev) => {
      ev.tick(1, callPos);
      ev.tick(1, listPos);
      return combine(networks, ev, test);
    };
  }

  private method(node: NodeOf<'method'>, scope: Binding | null): Code {
    const { pos, name } = node;
    const object = this.code(node.object, scope);
    const args = node.args.map((arg) => this.value(arg, scope));
    return (ev) => {
      ev.tick(1, pos);
      const target = object(ev);
      if (target === SHORT) return SHORT;
      const values = new Array<Value>(args.length);
      for (let i = 0; i < args.length; i++) values[i] = args[i]!(ev);
      ev.at = pos;
      try {
        return callMethod(target, name, values, ev);
      } catch (e) {
        throw positioned(e, pos);
      }
    };
  }
}

type NetworkListTest = (networks: Network[], ev: Evaluation, test: (ev: Evaluation, network: Network) => boolean) => boolean;
const NETWORK_LIST_TESTS = new Map<string, NetworkListTest>([
  ['any', (networks, ev, test) => networks.some((n) => test(ev, n))],
  ['all', (networks, ev, test) => networks.every((n) => test(ev, n))],
  ['none', (networks, ev, test) => !networks.some((n) => test(ev, n))],
]);

/** Whether `#`, `#index` or `#acc` (or a nested predicate) appears in the subtree. */
function usesPredicateFrame(node: Node): boolean {
  if (node.kind === 'pointer' || node.kind === 'closure') return true;
  return children(node).some(usesPredicateFrame);
}

/**
 * `a.b.c` or `a['b'].c` (an unbound name and literal names, no `?.`): its dotted name and the
 * positions its nodes count steps at, in the order a member-by-member walk counts them (each
 * member, outermost first, then the name, then each literal name, innermost first).
 */
function flatPath(node: NodeOf<'member'>, scope: Binding | null): { name: string; positions: Position[] } | undefined {
  const members: NodeOf<'member'>[] = [];
  const names: string[] = [];
  let n: Node = node;
  for (; n.kind === 'member'; n = n.object) {
    const property = n.property;
    if (n.optional || property.kind !== 'literal' || typeof property.value !== 'string') return undefined;
    members.push(n);
    names.push(property.value);
  }
  if (n.kind !== 'ident') return undefined;
  for (let s = scope; s; s = s.parent) if (s.name === n.name) return undefined;
  const inner = [...members].reverse();
  return { name: [n.name, ...names.reverse()].join('.'), positions: [...members.map((m) => m.pos), n.pos, ...inner.map((m) => m.property.pos)] };
}

/** Whether a node's code can return SHORT: the chain of an `?.` up to its optionalChain. */
function mayCutShort(node: Node): boolean {
  switch (node.kind) {
    case 'member':
      return node.optional || mayCutShort(node.object);
    case 'slice':
    case 'method':
      return mayCutShort(node.object);
    case 'conditional':
      return mayCutShort(node.then) || mayCutShort(node.otherwise);
    case 'elvis':
      return mayCutShort(node.otherwise);
    case 'let':
      return mayCutShort(node.body);
    case 'sequence':
      return mayCutShort(node.items.at(-1)!);
    default:
      return false;
  }
}

function bool(v: Value, pos: Position, what: string): boolean {
  if (typeof v !== 'boolean') throw new ExprError(`${what} must be a bool, got ${typeName(v)}`, pos);
  return v;
}

/** A builtin's failure without a position gets the position of its call. */
function positioned(e: unknown, pos: Position): unknown {
  return e instanceof BuiltinFailure ? new ExprError(e.message, pos) : e;
}

/** A map key from a value, failing at `pos`. */
function keyAt(ev: Evaluation, v: Value, pos: Position): string {
  if (typeof v === 'string') return v;
  ev.at = pos;
  return keyOf(v, ev);
}

/** `object[key]` for any object and key (member), with the language's errors. */
function fetch(ev: Evaluation, object: Value, key: Value, node: NodeOf<'member'>): Value {
  const { pos } = node;
  const keyPos = node.property.pos;
  if (object === null) throw new ExprError(`cannot fetch ${typeof key === 'string' ? key : typeName(key)} from nil`, pos);
  if (Array.isArray(object)) {
    if (!isInt(key)) throw new ExprError(`array index must be an int, got ${typeName(key)}`, keyPos);
    // In number arithmetic: any int beyond the array's bounds stays beyond them as a number.
    const n = Number(key);
    const i = n < 0 ? n + object.length : n;
    if (i < 0 || i >= object.length) throw new ExprError(`index out of range: ${key} (array length is ${object.length})`, keyPos);
    return object[i]!;
  }
  if (typeof object === 'string') {
    ev.charge(object.length / 4, pos);
    if (!isInt(key)) throw new ExprError(`string index must be an int, got ${typeName(key)}`, keyPos);
    const chars = [...object];
    const i = key < 0n ? key + BigInt(chars.length) : key;
    if (i < 0n || i >= BigInt(chars.length)) throw new ExprError(`index out of range: ${key} (string length is ${chars.length})`, keyPos);
    return chars[Number(i)]!;
  }
  if (isMap(object)) {
    const k = keyAt(ev, key, keyPos);
    return Object.hasOwn(object, k) ? (object[k] ?? null) : null;
  }
  throw new ExprError(`cannot fetch ${typeof key === 'string' ? key : typeName(key)} from ${typeName(object)}`, pos);
}

/** `left in right` for any right side. */
function contains(ev: Evaluation, left: Value, right: Value, pos: Position): boolean {
  if (Array.isArray(right)) {
    ev.tick(right.length, pos);
    return right.some((x) => equal(left, x));
  }
  if (right instanceof Network) {
    if (typeof left !== 'string') throw mismatch('in', left, right, pos);
    return right.contains(left);
  }
  if (isMap(right)) {
    if (left === null || typeof left === 'object') throw mismatch('in', left, right, pos);
    return Object.hasOwn(right, keyAt(ev, left, pos));
  }
  if (right === null) return false;
  throw mismatch('in', left, right, pos);
}

/** `left..right`: the ints from left to right, charged to both budgets. */
function range(ev: Evaluation, left: Value, right: Value, pos: Position): Value {
  if (!isInt(left) || !isInt(right)) throw mismatch('..', left, right, pos);
  if (right < left) return [];
  const n = right - left + 1n;
  const maxMemory = ev.limits.maxMemory;
  ev.charge(n > BigInt(maxMemory) ? maxMemory + 1 : Number(n), pos);
  ev.tick(Number(n), pos);
  const out: Value[] = new Array<Value>(Number(n));
  for (let i = 0; i < out.length; i++) out[i] = left + BigInt(i);
  return out;
}
