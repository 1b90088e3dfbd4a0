/**
 * What the filtering rules need from an expression language: does this expression hold for
 * this request? `expr/index.ts` implements it with a parser and evaluator of expr-lang
 * (see docs/filtering-rules.md); `validateExpression` there checks rules when they are saved.
 */
import type { RuleRequest } from './rule-request.js';

export interface ExpressionEvaluator {
  /** True when the expression holds. An expression the evaluator cannot run never holds. */
  matches(expression: string, request: RuleRequest): boolean;
}
