/**
 * What the filtering rules need from an expression language: does this expression hold for
 * this request? The full expr-lang evaluator comes with the Management API; until then
 * `minimal-evaluator.ts` implements an honest subset.
 */
import type { RuleRequest } from './rule-request.js';

export interface ExpressionEvaluator {
  /** True when the expression holds. An expression the evaluator cannot run never holds. */
  matches(expression: string, request: RuleRequest): boolean;
}
