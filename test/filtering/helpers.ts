import { buildEnvironment, compile, evaluate, type Limits, type Value } from '../../src/service/filtering/expr/index.js';

/** Compiles and evaluates `source` with a flat environment (dotted names nest). */
export function run(source: string, env: Record<string, unknown> = {}, limits?: Limits): Value {
  return evaluate(compile(source), buildEnvironment(env), limits);
}

/** The ExprError message `source` fails with (compile or run time), or undefined. */
export function failure(source: string, env: Record<string, unknown> = {}, limits?: Limits): string | undefined {
  try {
    run(source, env, limits);
    return undefined;
  } catch (e) {
    if (e instanceof Error && e.name === 'ExprError') return e.message;
    throw e;
  }
}
