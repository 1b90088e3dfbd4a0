/**
 * A deliberately small, safe subset of the expr-lang rule language, enough for the common
 * rules until the full evaluator lands:
 *   `true`, `false`, a boolean variable (`http.user_agent.is_crawler_bot`),
 *   `http.request.ip in cidr('…')` / `not in` (IPv4 and IPv6),
 *   `<string var> matches '…'` (RE2 via re2js, unanchored search),
 *   `<string var> == '…'` / `!= '…'`,
 * where a string var is `http.user_agent.string`, `sdk.platform.name`, `sdk.version`,
 * `sdk.platform.app_package_name`, `http.request.ip` or `http.request.headers['Name'][0]`.
 * Anything else never matches, and is logged once as unsupported.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { RE2JS } from 're2js';
import type { ExpressionEvaluator } from './evaluator.js';
import type { RuleRequest } from './rule-request.js';

type Compiled = (request: RuleRequest) => boolean;

const STRING = String.raw`('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")`;
const STRING_VARS = ['http.user_agent.string', 'sdk.platform.name', 'sdk.version', 'sdk.platform.app_package_name', 'http.request.ip'] as const;
const BOOL_VARS = [
  'http.user_agent.is_ai_bot',
  'http.user_agent.is_crawler_bot',
  'sdk.platform.is_browser',
  'sdk.platform.is_android',
  'sdk.platform.is_ios',
  'sdk.platform.is_unknown',
] as const;
const VAR = String.raw`(${STRING_VARS.map(escapeRegExp).join('|')}|http\.request\.headers\[${STRING}\]\[0\])`;

const CIDR_RE = new RegExp(String.raw`^http\.request\.ip\s+(not\s+)?in\s+cidr\(\s*${STRING}\s*\)$`);
const MATCHES_RE = new RegExp(String.raw`^${VAR}\s+matches\s+${STRING}$`);
const EQUALS_RE = new RegExp(String.raw`^${VAR}\s*(==|!=)\s*${STRING}$`);

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The value of a quoted literal, with the escapes the subset understands. */
export function unquote(literal: string): string {
  const body = literal.slice(1, -1);
  return body.replace(/\\(.)/g, (_, c: string) => ({ n: '\n', t: '\t', r: '\r' })[c] ?? c);
}

function stringVar(varText: string, headerLiteral: string | undefined): (r: RuleRequest) => string | undefined {
  if (headerLiteral !== undefined) {
    const name = unquote(headerLiteral);
    return (r) => r['http.request.headers'][name]?.[0];
  }
  const key = varText as (typeof STRING_VARS)[number];
  return (r) => r[key];
}

function cidrBlock(cidr: string): { list: BlockList; type: 'ipv4' | 'ipv6' } | undefined {
  const [network, prefixText] = cidr.split('/');
  if (!network) return undefined;
  const type = isIPv4(network) ? 'ipv4' : isIPv6(network) ? 'ipv6' : undefined;
  if (!type) return undefined;
  const max = type === 'ipv4' ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max) return undefined;
  const list = new BlockList();
  list.addSubnet(network, prefix, type);
  return { list, type };
}

/** Compiles an expression of the subset, or returns undefined when it is outside it. */
export function compileMinimal(expression: string): Compiled | undefined {
  const text = expression.trim();
  if (text === 'true') return () => true;
  if (text === 'false') return () => false;
  const boolVar = BOOL_VARS.find((v) => v === text);
  if (boolVar) return (r) => r[boolVar];

  const cidr = CIDR_RE.exec(text);
  if (cidr) {
    const block = cidrBlock(unquote(cidr[2]!));
    if (!block) return undefined;
    const negate = !!cidr[1];
    return (r) => {
      const ip = r['http.request.ip'];
      const type = isIPv4(ip) ? 'ipv4' : isIPv6(ip) ? 'ipv6' : undefined;
      // Node's BlockList would see IPv4 inside IPv6 networks (mapped addresses); networks match their own family only.
      const inside = type === block.type ? block.list.check(ip, type) : false;
      return negate ? !inside : inside;
    };
  }

  const matches = MATCHES_RE.exec(text);
  if (matches) {
    let pattern: RE2JS;
    try {
      pattern = RE2JS.compile(unquote(matches[3]!));
    } catch {
      return undefined;
    }
    const read = stringVar(matches[1]!, matches[2]);
    return (r) => {
      const value = read(r);
      return value !== undefined && pattern.matcher(value).find();
    };
  }

  const equals = EQUALS_RE.exec(text);
  if (equals) {
    const read = stringVar(equals[1]!, equals[2]);
    const literal = unquote(equals[4]!);
    const negate = equals[3] === '!=';
    return (r) => (read(r) === literal) !== negate;
  }
  return undefined;
}

export function createMinimalEvaluator(opts: { warn(message: string, expression: string): void }): ExpressionEvaluator {
  const cache = new Map<string, Compiled | null>();
  return {
    matches(expression, request) {
      let compiled = cache.get(expression);
      if (compiled === undefined) {
        compiled = compileMinimal(expression) ?? null;
        if (!compiled) opts.warn('filtering rule expression outside the supported subset never matches', expression);
        // Bounded: rules change rarely; a flood of distinct expressions must not grow memory.
        if (cache.size > 10_000) cache.clear();
        cache.set(expression, compiled);
      }
      return compiled ? compiled(request) : false;
    },
  };
}
