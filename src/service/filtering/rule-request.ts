/** The variables a filtering-rule expression sees for one identification request. */
import type { IncomingHttpHeaders } from 'node:http';
import { isAiBot, isCrawlerBot } from '../event-building/bot-detection.js';

export interface RuleRequest {
  'http.request.ip': string;
  /** Canonical header casing (`User-Agent`, `Origin`) to the list of values. */
  'http.request.headers': Record<string, string[]>;
  'http.user_agent.string': string;
  'http.user_agent.is_ai_bot': boolean;
  'http.user_agent.is_crawler_bot': boolean;
  'sdk.platform.name': 'js' | 'android' | 'ios' | 'unknown';
  'sdk.platform.is_browser': boolean;
  'sdk.platform.is_android': boolean;
  'sdk.platform.is_ios': boolean;
  'sdk.platform.is_unknown': boolean;
  'sdk.platform.app_package_name': string;
  'sdk.version': string;
}

/** `user-agent` -> `User-Agent`. */
export function canonicalHeaderName(name: string): string {
  let canonical = canonicalNames.get(name);
  if (canonical === undefined) {
    canonical = name
      .toLowerCase()
      .split('-')
      .map((part) => (part ? part[0]!.toUpperCase() + part.slice(1) : part))
      .join('-');
    // Requests carry a few dozen distinct header names; the bound keeps odd clients from growing it.
    if (canonicalNames.size >= MAX_CANONICAL_NAMES) canonicalNames.clear();
    canonicalNames.set(name, canonical);
  }
  return canonical;
}
const MAX_CANONICAL_NAMES = 512;
const canonicalNames = new Map<string, string>();

export function buildRuleRequest(input: {
  ip: string;
  headers: IncomingHttpHeaders;
  sdkPlatform?: string;
  sdkVersion?: string;
}): RuleRequest {
  const headers: Record<string, string[]> = {};
  for (const name in input.headers) {
    const value = input.headers[name];
    if (value === undefined) continue;
    headers[canonicalHeaderName(name)] = Array.isArray(value) ? value : [value];
  }
  const ua = headers['User-Agent']?.[0] ?? '';
  const platform = input.sdkPlatform === 'js' || input.sdkPlatform === 'android' || input.sdkPlatform === 'ios' ? input.sdkPlatform : 'unknown';
  return {
    'http.request.ip': input.ip,
    'http.request.headers': headers,
    'http.user_agent.string': ua,
    // The bot lists cost more than all other variables together: computed when a rule reads them.
    get 'http.user_agent.is_ai_bot'() {
      return isAiBot(ua);
    },
    get 'http.user_agent.is_crawler_bot'() {
      return isCrawlerBot(ua);
    },
    'sdk.platform.name': platform,
    'sdk.platform.is_browser': platform === 'js',
    'sdk.platform.is_android': platform === 'android',
    'sdk.platform.is_ios': platform === 'ios',
    'sdk.platform.is_unknown': platform === 'unknown',
    'sdk.platform.app_package_name': '',
    'sdk.version': input.sdkVersion ?? '',
  };
}
