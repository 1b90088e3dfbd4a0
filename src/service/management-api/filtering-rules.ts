/**
 * Filtering rules: list (in evaluation order), create, get, update (`POST /filtering-rules/{id}`,
 * only the given fields change), delete, and `POST /filtering-rules/test`. Expressions are
 * validated when saved; positions are renumbered without gaps on every change of order.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { decide } from '../filtering/first-match.js';
import { validateExpression } from '../filtering/expr/index.js';
import { buildRuleRequest } from '../filtering/rule-request.js';
import { NotFound } from '../http/errors.js';
import { getDefaultEnvironment } from '../store/environments.js';
import {
  deleteFilteringRule,
  getFilteringRuleInWorkspace,
  insertFilteringRule,
  listFilteringRules,
  listFilteringRulesPage,
  updateFilteringRule,
  type FilteringRuleChange,
} from '../store/filtering-rules.js';
import type { FilteringRulesTable } from '../store/schema.js';
import { environmentOf, inEnvironment } from './environments.js';
import { validationFailed } from './errors.js';
import { bodyFields, Fields, NAME_LENGTH, queryFields } from './fields.js';
import { callerOf, route } from './route.js';
import { listAnswer, probe, readWindow } from './pagination.js';
import { filteringRuleJson } from './resources.js';
import { parsePlacement, placeRule, type Placement } from './rule-placement.js';

type WithId = { Params: { id: string } };
const STATUSES = ['enabled', 'disabled'] as const;
const ACTIONS = ['allow', 'deny'] as const;
const MAX_EXPRESSION_LENGTH = 4096;
const MAX_TEST_RULES = 100;

async function ruleOf(ctx: ServiceContext, request: FastifyRequest, id: string): Promise<FilteringRulesTable> {
  const rule = await getFilteringRuleInWorkspace(ctx.store, callerOf(request).workspaceId, id);
  if (!rule) throw new NotFound(undefined, `no filtering rule "${id}"`);
  return rule;
}

/** A rule expression: a string the evaluator accepts (the violation names line:column). */
function readExpression(fields: Fields, name: string, required: boolean, property = name): string | undefined {
  const expression = fields.string(name, { required, min: 1, max: MAX_EXPRESSION_LENGTH });
  if (typeof expression !== 'string') return undefined;
  const problem = validateExpression(expression);
  if (problem) return fields.fail(property, `${problem.message} (${problem.line}:${problem.column})`);
  return expression;
}

function readPlacement(fields: Fields): Placement | undefined {
  const raw = fields.raw('placement');
  if (raw === undefined) return undefined;
  const placement = parsePlacement(raw);
  return typeof placement === 'string' ? fields.fail('placement', placement) : placement;
}

/** `placeRule`, with a bad anchor as the 422 it is. */
function placed(others: readonly string[], id: string, placement: Placement | undefined, defaultIndex: number): string[] {
  const order = placeRule(others, id, placement, defaultIndex);
  if (typeof order === 'string') throw validationFailed([{ property: 'placement', message: order }]);
  return order;
}

async function ruleIds(ctx: ServiceContext, environmentId: string): Promise<string[]> {
  return (await listFilteringRules(ctx.store, environmentId)).map((r) => r.id);
}

/** Stands for the id of a rule not inserted yet. */
const NEW_RULE = '\0new';

export function filteringRuleRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get('/filtering-rules', route('filtering_rules:read'), async (request) => {
    const query = queryFields(request.query);
    const environment = query.string('environment');
    const status = query.oneOf('status', STATUSES);
    const name = query.string('name');
    const window = readWindow(query);
    query.check();
    const rows = await listFilteringRulesPage(
      ctx.store,
      callerOf(request).workspaceId,
      { environmentId: environment ?? undefined, status, name: name ?? undefined },
      probe(window),
    );
    return listAnswer(rows, window, filteringRuleJson);
  });

  app.post('/filtering-rules', route('filtering_rules:write'), async (request, reply) => {
    const body = bodyFields(request.body);
    const name = body.string('name', { required: true, ...NAME_LENGTH });
    const environment = body.string('environment');
    const expression = readExpression(body, 'expression', true);
    const action = body.oneOf('action', ACTIONS, { required: true });
    const status = body.oneOf('status', STATUSES);
    const denyWith = body.string('deny_with', { min: 1, max: 255, nullable: true });
    const placement = readPlacement(body);
    body.check();

    const workspaceId = callerOf(request).workspaceId;
    const environmentId = environment
      ? (await environmentOf(ctx, request, environment)).id
      : (await getDefaultEnvironment(ctx.store, workspaceId))!.id;
    // The order is worked out first (a bad anchor is a 422 before anything is written), then
    // the rule is inserted in it in one transaction: no moment with the rule elsewhere.
    const others = await ruleIds(ctx, environmentId);
    const order = placed(others, NEW_RULE, placement, others.length);
    const rule = await inEnvironment(
      insertFilteringRule(ctx.store, {
        environmentId,
        name: name!,
        expression: expression!,
        action: action!,
        status,
        denyWith,
        ...(placement !== undefined ? { order: (id: string) => order.map((r) => (r === NEW_RULE ? id : r)) } : {}),
        now: ctx.clock(),
      }),
    );
    return reply.code(201).send({ data: filteringRuleJson(rule) });
  });

  app.post('/filtering-rules/test', route('filtering_rules:read'), async (request) => {
    const body = bodyFields(request.body);
    const environment = body.string('environment');
    const rawRules = body.raw('rules');
    const rawRequest = body.raw('request');
    if (environment !== undefined && rawRules !== undefined) body.fail('rules', 'give either environment or rules, not both');
    const drafts: FilteringRulesTable[] = [];
    if (rawRules !== undefined) {
      if (!Array.isArray(rawRules) || rawRules.length > MAX_TEST_RULES) body.fail('rules', `must be an array of at most ${MAX_TEST_RULES} rules`);
      else rawRules.forEach((raw, i) => {
        const draft = readDraft(body, raw, i);
        if (draft) drafts.push(draft);
      });
    }
    const sample = readSampleRequest(body, rawRequest);
    body.check();

    let rules: readonly FilteringRulesTable[] = drafts;
    if (rawRules === undefined) {
      const environmentId = environment
        ? (await environmentOf(ctx, request, environment)).id
        : (await getDefaultEnvironment(ctx.store, callerOf(request).workspaceId))!.id;
      rules = await listFilteringRules(ctx.store, environmentId);
    }
    const decision = decide(rules, ctx.ruleEvaluator, buildRuleRequest(sample!));
    return {
      data: {
        result: decision.action,
        deny_with: decision.action === 'deny' ? decision.denyWith : null,
        triggered_rule: decision.rule?.id ?? null,
      },
    };
  });

  app.get<WithId>('/filtering-rules/:id', route('filtering_rules:read'), async (request) => ({
    data: filteringRuleJson(await ruleOf(ctx, request, request.params.id)),
  }));

  app.post<WithId>('/filtering-rules/:id', route('filtering_rules:write'), async (request) => {
    const rule = await ruleOf(ctx, request, request.params.id);
    const body = bodyFields(request.body);
    const id = body.raw('id');
    if (id !== rule.id) body.fail('id', id === undefined ? 'is required and must equal the id in the path' : 'must equal the id in the path');
    const name = body.string('name', NAME_LENGTH);
    const environment = body.string('environment');
    const expression = readExpression(body, 'expression', false);
    const action = body.oneOf('action', ACTIONS);
    const status = body.oneOf('status', STATUSES);
    const denyWith = body.string('deny_with', { min: 1, max: 255, nullable: true });
    const placement = readPlacement(body);
    body.check();

    const environmentId = environment ? (await environmentOf(ctx, request, environment)).id : rule.environment_id;
    const change: FilteringRuleChange = {
      ...(name ? { name } : {}),
      ...(environmentId !== rule.environment_id ? { environment_id: environmentId } : {}),
      ...(expression !== undefined ? { expression } : {}),
      ...(action !== undefined ? { action } : {}),
      ...(status !== undefined ? { status } : {}),
      ...(denyWith !== undefined ? { deny_with: denyWith } : {}),
      updated_at: ctx.clock(),
    };
    const moved = environmentId !== rule.environment_id;
    const current = await ruleIds(ctx, rule.environment_id);
    const target = moved ? await ruleIds(ctx, environmentId) : current.filter((r) => r !== rule.id);
    const orders = new Map<string, string[]>();
    orders.set(environmentId, placed(target, rule.id, placement, moved ? target.length : current.indexOf(rule.id)));
    if (moved) orders.set(rule.environment_id, current.filter((r) => r !== rule.id));
    await inEnvironment(updateFilteringRule(ctx.store, rule.id, change, orders));
    return { data: filteringRuleJson((await ruleOf(ctx, request, rule.id))) };
  });

  app.delete<WithId>('/filtering-rules/:id', route('filtering_rules:write'), async (request, reply) => {
    const rule = await ruleOf(ctx, request, request.params.id);
    const remaining = (await ruleIds(ctx, rule.environment_id)).filter((r) => r !== rule.id);
    await deleteFilteringRule(ctx.store, rule.id, rule.environment_id, remaining);
    return reply.code(200).send();
  });
}

/** A rule given inline to the test: checked like a saved one, its id `rules[i]`. */
function readDraft(body: Fields, raw: unknown, i: number): FilteringRulesTable | undefined {
  const at = `rules[${i}]`;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return body.fail(at, 'must be a rule object');
  const fields = new Fields(raw as Record<string, unknown>, 'body');
  const name = fields.string('name', NAME_LENGTH) ?? at;
  const expression = readExpression(fields, 'expression', true);
  const action = fields.oneOf('action', ACTIONS, { required: true });
  const status = fields.oneOf('status', STATUSES) ?? 'enabled';
  const denyWith = fields.string('deny_with', { min: 1, max: 255, nullable: true }) ?? null;
  try {
    fields.check();
  } catch {
    for (const v of fields.violations) body.fail(`${at}.${v.property}`, v.message);
    return undefined;
  }
  return { id: at, environment_id: '', position: i, name, expression: expression!, action: action!, status, deny_with: denyWith, created_at: 0, updated_at: null };
}

/** The sample request: `{headers, ip, user_agent, sdk_platform, sdk_version}`, all optional. */
function readSampleRequest(body: Fields, raw: unknown): Parameters<typeof buildRuleRequest>[0] | undefined {
  if (raw === undefined) return body.fail('request', 'is required');
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return body.fail('request', 'must be an object');
  const fields = new Fields(raw as Record<string, unknown>, 'body');
  const rawHeaders = fields.raw('headers') ?? {};
  const ip = fields.string('ip', { max: 64 }) ?? '';
  const userAgent = fields.string('user_agent', { max: 4096 });
  const sdkPlatform = fields.string('sdk_platform', { max: 64 });
  const sdkVersion = fields.string('sdk_version', { max: 64 });
  const headers: Record<string, string> = {};
  if (typeof rawHeaders !== 'object' || rawHeaders === null || Array.isArray(rawHeaders)) fields.fail('headers', 'must be an object of strings');
  else {
    for (const [name, value] of Object.entries(rawHeaders)) {
      if (typeof value === 'string') headers[name.toLowerCase()] = value;
      else fields.fail(`headers.${name}`, 'must be a string');
    }
  }
  if (typeof userAgent === 'string') headers['user-agent'] = userAgent;
  try {
    fields.check();
  } catch {
    for (const v of fields.violations) body.fail(`request.${v.property}`, v.message);
    return undefined;
  }
  return { ip, headers, sdkPlatform: sdkPlatform ?? undefined, sdkVersion: sdkVersion ?? undefined };
}
