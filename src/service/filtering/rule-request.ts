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
  const platform = input.sdkPlatform === 'js' || input.sdkPlatform === 'android' || input.sdkPlatform === 'ios' ? input.sdkPlatform : 'unknown';
  return new RequestVariables(input.ip, input.headers, platform, input.sdkVersion ?? '');
}

/**
 * A class, not an object literal with getters (which V8 builds slowly, with new getter
 * functions each time): what costs is computed when a rule reads it, the header map once
 * and the bot lists (more than all other variables together) on each read.
 */
class RequestVariables implements RuleRequest {
  readonly 'http.request.ip': string;
  readonly 'sdk.platform.name': RuleRequest['sdk.platform.name'];
  readonly 'sdk.platform.app_package_name' = '';
  readonly 'sdk.version': string;
  private canonicalHeaders: Record<string, string[]> | undefined;

  constructor(
    ip: string,
    private readonly rawHeaders: IncomingHttpHeaders,
    platform: RuleRequest['sdk.platform.name'],
    version: string,
  ) {
    this['http.request.ip'] = ip;
    this['sdk.platform.name'] = platform;
    this['sdk.version'] = version;
  }

  get 'http.request.headers'(): Record<string, string[]> {
    if (this.canonicalHeaders) return this.canonicalHeaders;
    const headers: Record<string, string[]> = {};
    for (const name in this.rawHeaders) {
      const value = this.rawHeaders[name];
      if (value === undefined) continue;
      headers[canonicalHeaderName(name)] = Array.isArray(value) ? value : [value];
    }
    return (this.canonicalHeaders = headers);
  }

  get 'http.user_agent.string'(): string {
    return this['http.request.headers']['User-Agent']?.[0] ?? '';
  }

  get 'http.user_agent.is_ai_bot'(): boolean {
    return isAiBot(this['http.user_agent.string']);
  }

  get 'http.user_agent.is_crawler_bot'(): boolean {
    return isCrawlerBot(this['http.user_agent.string']);
  }

  get 'sdk.platform.is_browser'(): boolean {
    return this['sdk.platform.name'] === 'js';
  }

  get 'sdk.platform.is_android'(): boolean {
    return this['sdk.platform.name'] === 'android';
  }

  get 'sdk.platform.is_ios'(): boolean {
    return this['sdk.platform.name'] === 'ios';
  }

  get 'sdk.platform.is_unknown'(): boolean {
    return this['sdk.platform.name'] === 'unknown';
  }
}
