/** The rule-order logic: the first enabled rule whose expression holds decides; none = allow. */
import type { FilteringRulesTable } from '../store/schema.js';
import type { ExpressionEvaluator } from './evaluator.js';
import type { RuleRequest } from './rule-request.js';

export type RuleDecision =
  | { action: 'allow'; rule?: FilteringRulesTable }
  | { action: 'deny'; rule: FilteringRulesTable; denyWith: string };

export const DEFAULT_DENY_MESSAGE = 'Forbidden';

/** `rules` must be in evaluation order (by `position`). */
export function decide(rules: readonly FilteringRulesTable[], evaluator: ExpressionEvaluator, request: RuleRequest): RuleDecision {
  for (const rule of rules) {
    if (rule.status !== 'enabled') continue;
    if (!evaluator.matches(rule.expression, request)) continue;
    if (rule.action === 'deny') return { action: 'deny', rule, denyWith: rule.deny_with || DEFAULT_DENY_MESSAGE };
    return { action: 'allow', rule };
  }
  return { action: 'allow' };
}
