/**
 * Runs a compiled expression (its closures, see closures.ts) on an environment. Bounded per
 * evaluation: a step budget (every node run and the work of builtins counts), a wall-clock
 * deadline, and a memory budget for built arrays and strings (evaluation.ts).
 */
import type { Node } from './ast.js';
import { SHORT, type Code } from './closures.js';
import { ExprError } from './errors.js';
import { DEFAULT_LIMITS, type Evaluation, type Limits } from './evaluation.js';
import type { MapValue, Value } from './values.js';

/** A compiled expression. */
export interface Program {
  root: Node;
  code: Code;
  /** The state of its runs (its slots, budgets, environment). */
  evaluation: Evaluation;
}

/** `flat`: the environment's variables by dotted name too, for the names the program was compiled with (Tables.flatNames). */
export function run(program: Program, env: MapValue, limits: Limits = DEFAULT_LIMITS, flat?: object): Value {
  const { evaluation } = program;
  evaluation.begin(env, limits, flat);
  try {
    const v = program.code(evaluation);
    return v === SHORT ? null : v;
  } catch (e) {
    if (e instanceof RangeError) throw new ExprError(`evaluation failed: ${e.message}`, program.root.pos);
    throw e;
  } finally {
    evaluation.end();
  }
}
