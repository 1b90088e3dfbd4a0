/** The filtering-rule logic without a server: rule expressions on request variables and first-match order. */
import { describe, expect, it } from 'vitest';
import { decide } from '../../src/service/filtering/first-match.js';
import { compile, createExpressionEvaluator, evaluate, ExprError, requestEnvironment, RULE_VARIABLES } from '../../src/service/filtering/expr/index.js';
import { buildRuleRequest, canonicalHeaderName } from '../../src/service/filtering/rule-request.js';
import type { FilteringRulesTable } from '../../src/service/store/schema.js';

const request = (ip: string, headers: Record<string, string> = {}) =>
  buildRuleRequest({ ip, headers: { 'user-agent': 'Mozilla/5.0 Chrome/131', ...headers }, sdkPlatform: 'js', sdkVersion: '4.0.0' });

function holds(expression: string, req = request('203.0.113.9')): unknown {
  return evaluate(compile(expression, { knownNames: RULE_VARIABLES }), requestEnvironment(req));
}

const rejects = (expression: string) => expect(() => compile(expression, { knownNames: RULE_VARIABLES })).toThrow(ExprError);

describe('rule expressions on request variables', () => {
  it('evaluates literals and boolean variables', () => {
    expect(holds('true')).toBe(true);
    expect(holds(' false ')).toBe(false);
    expect(holds('sdk.platform.is_browser')).toBe(true);
    expect(holds('http.user_agent.is_crawler_bot')).toBe(false);
    expect(holds('http.user_agent.is_crawler_bot', request('1.1.1.1', { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1)' }))).toBe(true);
    expect(holds('http.user_agent.is_ai_bot', request('1.1.1.1', { 'user-agent': 'Mozilla/5.0 (compatible; GPTBot/1.2)' }))).toBe(true);
  });

  it('tests IPv4 and IPv6 CIDR containment', () => {
    expect(holds("http.request.ip in cidr('203.0.113.0/24')")).toBe(true);
    expect(holds("http.request.ip in cidr('203.0.114.0/24')")).toBe(false);
    expect(holds(`http.request.ip in cidr("203.0.113.9")`)).toBe(true);
    expect(holds("http.request.ip not in cidr('10.0.0.0/8')")).toBe(true);
    expect(holds("http.request.ip in cidr('2001:db8::/32')", request('2001:db8:1::5'))).toBe(true);
    expect(holds("http.request.ip in cidr('2001:db8::/32')", request('2001:db9::5'))).toBe(false);
    // An IPv4 client is not inside an IPv6 network.
    expect(holds("http.request.ip in cidr('::/0')")).toBe(false);
    rejects("http.request.ip in cidr('10.0.0.0/33')");
    rejects("http.request.ip in cidr('not-an-ip/8')");
  });

  it('evaluates each request on its own when one evaluator sees requests one after another', () => {
    // The evaluator reuses a request's environment across its rules and the last parsed address.
    const evaluator = createExpressionEvaluator({ warn: () => undefined });
    const inside = request('10.1.2.3', { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1)' });
    const outside = request('192.0.2.1');
    for (let i = 0; i < 3; i++) {
      expect(evaluator.matches("http.request.ip in cidr('10.0.0.0/8')", inside)).toBe(true);
      expect(evaluator.matches("http.request.ip in cidr('10.0.0.0/8')", outside)).toBe(false);
      expect(evaluator.matches('http.user_agent.is_crawler_bot', inside)).toBe(true);
      expect(evaluator.matches('http.user_agent.is_crawler_bot', outside)).toBe(false);
    }
    // The lazily computed bot flags are ordinary map entries of http.user_agent.
    expect(holds("'is_crawler_bot' in http.user_agent && http.user_agent['is_ai_bot'] == false")).toBe(true);
  });

  it('matches RE2 patterns (unanchored, with flags) and compares strings', () => {
    const bot = request('1.1.1.1', { 'user-agent': 'Mozilla/5.0 HeadlessChrome/120', origin: 'https://shop.example.com' });
    expect(holds("http.user_agent.string matches '(?i)headless'", bot)).toBe(true);
    expect(holds("http.user_agent.string matches '^Headless'", bot)).toBe(false);
    expect(holds("http.request.headers['Origin'][0] == 'https://shop.example.com'", bot)).toBe(true);
    expect(holds(`http.request.headers["Origin"][0] != 'https://shop.example.com'`, bot)).toBe(false);
    // A missing header is nil; indexing nil is an error, so the rule cannot match.
    expect(() => holds("http.request.headers['X-Missing'][0] == ''", bot)).toThrow(ExprError);
    expect(holds("http.request.headers['X-Missing']?.[0] == ''", bot)).toBe(false);
    expect(holds("sdk.version == '4.0.0'")).toBe(true);
    expect(holds("sdk.platform.name != 'js'")).toBe(false);
    expect(holds(String.raw`sdk.version == '4\'0'`)).toBe(false);
    // RE2 has no lookaround: such a pattern is rejected when the rule is compiled.
    rejects("http.user_agent.string matches '(?=x)'");
  });

  it('evaluates the whole language; invalid or failing expressions never match (warning once)', () => {
    expect(holds('1 == 1')).toBe(true);
    expect(holds('len(http.user_agent.string) > 3')).toBe(true);
    expect(holds("true && http.request.ip in cidr('1.0.0.0/8')")).toBe(false);
    for (const expression of ['truee', '', 'http.request.ipp == "x"']) rejects(expression);
    const warnings: string[] = [];
    const evaluator = createExpressionEvaluator({ warn: (_m, expression) => warnings.push(expression) });
    expect(evaluator.matches('truee', request('1.1.1.1'))).toBe(false);
    expect(evaluator.matches('truee', request('1.1.1.1'))).toBe(false);
    expect(evaluator.matches("http.request.headers['X-Missing'][0] == 'x'", request('1.1.1.1'))).toBe(false);
    expect(evaluator.matches("http.request.headers['X-Missing'][0] == 'x'", request('1.1.1.1'))).toBe(false);
    expect(evaluator.matches('sdk.version', request('1.1.1.1'))).toBe(false);
    expect(evaluator.matches('1 == 1', request('1.1.1.1'))).toBe(true);
    expect(warnings).toEqual(['truee', "http.request.headers['X-Missing'][0] == 'x'", 'sdk.version']);
  });

  it('canonicalises header names', () => {
    expect(canonicalHeaderName('user-agent')).toBe('User-Agent');
    expect(canonicalHeaderName('X-FORWARDED-FOR')).toBe('X-Forwarded-For');
    expect(request('1.1.1.1', { origin: 'https://a.example' })['http.request.headers'].Origin).toEqual(['https://a.example']);
    const odd = buildRuleRequest({ ip: '1.1.1.1', headers: { 'USER-AGENT': ['first', 'second'], 'x-none': undefined }, sdkPlatform: 'other' });
    expect(odd['http.user_agent.string']).toBe('first');
    expect(odd['http.request.headers']).toEqual({ 'User-Agent': ['first', 'second'] });
    expect([odd['sdk.platform.name'], odd['sdk.platform.is_unknown'], odd['sdk.platform.is_browser'], odd['sdk.version']]).toEqual(['unknown', true, false, '']);
  });
});

describe('first match decides', () => {
  const evaluator = createExpressionEvaluator({ warn: () => undefined });
  let position = 0;
  const rule = (expression: string, action: 'allow' | 'deny', extra: Partial<FilteringRulesTable> = {}): FilteringRulesTable => ({
    id: `tr_${position}`,
    environment_id: 'ae_x',
    position: position++,
    name: 'r',
    expression,
    action,
    status: 'enabled',
    deny_with: null,
    created_at: 0,
    updated_at: null,
    ...extra,
  });
  const req = request('10.1.2.3');

  it('allows when no rule matches, or there are none', () => {
    expect(decide([], evaluator, req)).toEqual({ action: 'allow' });
    expect(decide([rule('false', 'deny')], evaluator, req).action).toBe('allow');
  });

  it('stops at the first enabled matching rule', () => {
    const allow = rule("http.request.ip in cidr('10.0.0.0/8')", 'allow');
    const deny = rule('true', 'deny', { deny_with: 'Go away' });
    expect(decide([allow, deny], evaluator, req)).toEqual({ action: 'allow', rule: allow });
    expect(decide([deny, allow], evaluator, req)).toEqual({ action: 'deny', rule: deny, denyWith: 'Go away' });
  });

  it('skips disabled rules and defaults the deny message', () => {
    const off = rule('true', 'allow', { status: 'disabled' });
    const deny = rule('true', 'deny');
    expect(decide([off, deny], evaluator, req)).toMatchObject({ action: 'deny', denyWith: 'Forbidden' });
  });
});
