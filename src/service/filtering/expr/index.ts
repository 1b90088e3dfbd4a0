/**
 * expr-lang for filtering rules: `compile` (parse + static checks, at rule create/update time),
 * `evaluate`, `validateExpression` for the Management API, and `createExpressionEvaluator`,
 * the service's ExpressionEvaluator with its own bounded cache of compiled rules.
 */
import { RE2JS } from 're2js';
import type { ExpressionEvaluator } from '../evaluator.js';
import type { RuleRequest } from '../rule-request.js';
import type { Node } from './ast.js';
import { ExprError, type Position } from './errors.js';
import { compileTree, type Tables } from './closures.js';
import { literalPattern, type Pattern } from './literal-patterns.js';
import { run, type Program } from './evaluate.js';
import { DEFAULT_LIMITS, Evaluation, type Limits } from './evaluation.js';
import { children, parse } from './parser.js';
import { fromPlain, Network, type MapValue, type Value } from './values.js';

export { ExprError } from './errors.js';
export type { Limits } from './evaluation.js';
export { DEFAULT_LIMITS } from './evaluation.js';
export type { Value } from './values.js';

export interface CompiledExpression {
  readonly source: string;
  readonly program: Program;
}

export interface CompileOptions {
  /** Dotted variable names the environment will have; others are rejected at compile time. */
  knownNames?: Iterable<string>;
  /** Dotted names that runs may also pass in a flat record (run's `flat`), read there in one lookup. */
  flatNames?: ReadonlySet<string>;
}

const RULE_VARIABLE_SET = {
  'http.request.ip': true,
  'http.request.headers': true,
  'http.user_agent.string': true,
  'http.user_agent.is_ai_bot': true,
  'http.user_agent.is_crawler_bot': true,
  'sdk.platform.name': true,
  'sdk.platform.is_browser': true,
  'sdk.platform.is_android': true,
  'sdk.platform.is_ios': true,
  'sdk.platform.is_unknown': true,
  'sdk.platform.app_package_name': true,
  'sdk.version': true,
} satisfies Record<keyof RuleRequest, true>;

/** The variables of a filtering-rule expression (see rule-request.ts). */
export const RULE_VARIABLES: readonly string[] = Object.keys(RULE_VARIABLE_SET);
/** A RuleRequest is the rule variables by dotted name: rules read them from it directly. */
const RULE_VARIABLE_NAMES: ReadonlySet<string> = new Set(RULE_VARIABLES);

const MAX_RUNTIME_PATTERNS = 64;
/** A rule may list many networks (`any([...], ip in cidr(#))`): room for all of them. */
const MAX_RUNTIME_NETWORKS = 1024;

/** RE2 checks every pattern; the simple ones then run as a RegExp with the same matches (literal-patterns.ts). */
function compileRegex(pattern: string, pos: Position): Pattern {
  let re2: RE2JS;
  try {
    re2 = RE2JS.compile(pattern);
  } catch (e) {
    throw new ExprError(`invalid regular expression ${JSON.stringify(pattern)}: ${e instanceof Error ? e.message : String(e)}`, pos);
  }
  return literalPattern(pattern) ?? re2;
}

const isLiteral = (n: Node): boolean => n.kind === 'literal';

/** Parses and checks an expression, and compiles it into closures. Throws ExprError with a position. */
export function compile(source: string, options: CompileOptions = {}): CompiledExpression {
  const root = parse(source);
  const runtimePatterns = new Map<string, Pattern>();
  const runtimeNetworks = new Map<string, Network | undefined>();
  const tables: Tables = {
    constants: new Map(),
    regexes: new Map(),
    flatNames: options.flatNames,
    compileRegex(pattern, pos) {
      let re = runtimePatterns.get(pattern);
      if (!re) {
        re = compileRegex(pattern, pos);
        if (runtimePatterns.size >= MAX_RUNTIME_PATTERNS) runtimePatterns.clear();
        runtimePatterns.set(pattern, re);
      }
      return re;
    },
  };
  const parseNetwork = (text: string): Network | undefined => {
    if (runtimeNetworks.has(text)) return runtimeNetworks.get(text);
    const network = Network.parse(text);
    if (runtimeNetworks.size >= MAX_RUNTIME_NETWORKS) runtimeNetworks.clear();
    runtimeNetworks.set(text, network);
    return network;
  };
  const programOf = (node: Node): Program => {
    const { code, slotCount } = compileTree(node, tables);
    return { root: node, code, evaluation: new Evaluation(slotCount, parseNetwork) };
  };
  const { constants, regexes } = tables;
  const known = options.knownNames ? [...options.knownNames] : undefined;
  const letNames = new Set<string>();
  const all: Node[] = [];
  for (const stack = [root]; stack.length; ) {
    const n = stack.pop()!;
    all.push(n);
    if (n.kind === 'let') letNames.add(n.name);
    stack.push(...children(n));
  }
  const staticallyChecked = new Set<Node>();
  for (const n of all) {
    if (n.kind === 'call' && n.callee === 'cidr' && n.args.length === 1 && n.args[0]!.kind === 'literal' && typeof n.args[0].value === 'string') {
      const network = Network.parse(n.args[0].value);
      if (!network) throw new ExprError(`invalid CIDR ${JSON.stringify(n.args[0].value)}`, n.args[0].pos);
      constants.set(n, network);
    }
    // A list of literals (`x in ['a', 'b']`, `any([...], ...)`) is built once, not per evaluation;
    // frozen, as nothing may change a value another evaluation shares.
    if (n.kind === 'array' && n.items.length > 0 && n.items.every(isLiteral)) {
      constants.set(n, Object.freeze(n.items.map((item) => (item as { value: unknown }).value as Value)) as Value[]);
    }
    if (n.kind === 'binary' && n.op === 'matches' && n.right.kind === 'literal' && typeof n.right.value === 'string') {
      regexes.set(n.right, compileRegex(n.right.value, n.right.pos));
    }
    // Operations on literals only are evaluated now: `1 + ''` or `7 % 0` is rejected when the rule is saved.
    // (Ranges are left to run time: a large literal range is valid, only costly.)
    if ((n.kind === 'binary' && n.op !== '..' && isLiteral(n.left) && isLiteral(n.right)) || (n.kind === 'unary' && isLiteral(n.operand))) {
      run(programOf(n), Object.create(null) as MapValue, DEFAULT_LIMITS);
    }
    if (known && !staticallyChecked.has(n)) checkNames(n, known, letNames, staticallyChecked);
  }
  return { source, program: programOf(root) };
}

/** The dotted path of `a.b.c` / `a['b']`, or undefined. */
function staticPath(n: Node, seen: Node[]): string | undefined {
  if (n.kind === 'ident') {
    seen.push(n);
    return n.name;
  }
  if (n.kind === 'member' && n.property.kind === 'literal' && typeof n.property.value === 'string') {
    const base = staticPath(n.object, seen);
    seen.push(n);
    return base === undefined ? undefined : `${base}.${n.property.value}`;
  }
  if (n.kind === 'optionalChain') return staticPath(n.body, seen);
  return undefined;
}

function checkNames(n: Node, known: string[], letNames: Set<string>, checked: Set<Node>): void {
  const seen: Node[] = [];
  const path = staticPath(n, seen);
  if (path === undefined) return;
  for (const s of seen) checked.add(s);
  const root = path.split('.')[0]!;
  if (letNames.has(root)) return;
  const ok = known.some((k) => k === path || path.startsWith(`${k}.`) || k.startsWith(`${path}.`));
  if (!ok) throw new ExprError(`unknown name ${path}`, seen[0]!.pos);
}

/**
 * Evaluates a compiled expression against an environment (see buildEnvironment). `flat`, when
 * given, holds the same variables by dotted name (CompileOptions.flatNames).
 */
export function evaluate(compiled: CompiledExpression, env: MapValue, limits: Limits = DEFAULT_LIMITS, flat?: object): Value {
  return run(compiled.program, env, limits, flat);
}

/**
 * Nests a flat record with dotted names (`http.request.ip`) into the environment an
 * expression sees. Integral JS numbers become ints; bigint values are ints already.
 */
export function buildEnvironment(flat: Record<string, unknown>): MapValue {
  const env = Object.create(null) as MapValue;
  for (const [name, value] of Object.entries(flat)) {
    const parts = name.split('.');
    let target = env;
    for (const part of parts.slice(0, -1)) {
      const next = target[part];
      if (next === undefined || next === null || typeof next !== 'object' || Array.isArray(next)) target[part] = Object.create(null) as MapValue;
      target = target[part] as MapValue;
    }
    target[parts.at(-1)!] = fromPlain(value);
  }
  return env;
}

/** The environment of one identification request. */
export function requestEnvironment(r: RuleRequest): MapValue {
  return requestView(() => r);
}

/**
 * An environment whose entries read the variables of `current()` when a rule reads them: one
 * serves request after request, and what a request computes lazily (rule-request.ts) stays lazy.
 */
function requestView(current: () => RuleRequest): MapValue {
  return {
    http: {
      request: {
        get ip() {
          return current()['http.request.ip'];
        },
        get headers() {
          return current()['http.request.headers'];
        },
      },
      user_agent: {
        get string() {
          return current()['http.user_agent.string'];
        },
        get is_ai_bot() {
          return current()['http.user_agent.is_ai_bot'];
        },
        get is_crawler_bot() {
          return current()['http.user_agent.is_crawler_bot'];
        },
      },
    },
    sdk: {
      platform: {
        get name() {
          return current()['sdk.platform.name'];
        },
        get is_browser() {
          return current()['sdk.platform.is_browser'];
        },
        get is_android() {
          return current()['sdk.platform.is_android'];
        },
        get is_ios() {
          return current()['sdk.platform.is_ios'];
        },
        get is_unknown() {
          return current()['sdk.platform.is_unknown'];
        },
        get app_package_name() {
          return current()['sdk.platform.app_package_name'];
        },
      },
      get version() {
        return current()['sdk.version'];
      },
    },
  };
}

/** For the Management API: null when the expression is a valid rule, else where and why not. */
export function validateExpression(expression: string): { line: number; column: number; message: string } | null {
  try {
    const { program } = compile(expression, { knownNames: RULE_VARIABLES });
    const root = program.root;
    if (root.kind === 'literal' && typeof root.value !== 'boolean') throw new ExprError('a rule expression must return a bool', root.pos);
    if (root.kind === 'array' || root.kind === 'map') throw new ExprError('a rule expression must return a bool', root.pos);
    return null;
  } catch (e) {
    if (e instanceof ExprError) return { line: e.line, column: e.column, message: e.message };
    throw e;
  }
}

interface CacheEntry {
  compiled: CompiledExpression | null;
  warned: boolean;
}

export interface ExpressionEvaluatorOptions {
  warn(message: string, expression: string): void;
  limits?: Limits;
  /** Compiled expressions kept (least recently compiled dropped first). */
  cacheSize?: number;
}

/** The service's evaluator: compiles each expression once (bounded cache owned by this instance). */
export function createExpressionEvaluator(opts: ExpressionEvaluatorOptions): ExpressionEvaluator {
  const cache = new Map<string, CacheEntry>();
  const cacheSize = opts.cacheSize ?? 1000;
  const limits = opts.limits ?? DEFAULT_LIMITS;

  const entryFor = (expression: string): CacheEntry => {
    let entry = cache.get(expression);
    if (entry) return entry;
    entry = { compiled: null, warned: false };
    try {
      entry.compiled = compile(expression, { knownNames: RULE_VARIABLES, flatNames: RULE_VARIABLE_NAMES });
    } catch (e) {
      entry.warned = true;
      opts.warn(`filtering rule expression is invalid and never matches: ${e instanceof Error ? e.message : String(e)}`, expression);
    }
    if (cache.size >= cacheSize) cache.delete(cache.keys().next().value!);
    cache.set(expression, entry);
    return entry;
  };

  // One environment for all requests, reading the request being evaluated (nothing built per request).
  let current: RuleRequest | undefined;
  const environment = requestView(() => current!);

  return {
    matches(expression, request) {
      const entry = entryFor(expression);
      if (!entry.compiled) return false;
      let result: Value;
      try {
        current = request;
        result = run(entry.compiled.program, environment, limits, request);
      } catch (e) {
        if (!entry.warned) {
          entry.warned = true;
          opts.warn(`filtering rule expression failed, treated as not matching: ${e instanceof Error ? e.message : String(e)}`, expression);
        }
        return false;
      }
      if (typeof result !== 'boolean' && !entry.warned) {
        entry.warned = true;
        opts.warn(`filtering rule expression returned a ${result === null ? 'nil' : typeof result} instead of a bool, treated as not matching`, expression);
      }
      return result === true;
    },
  };
}
