/**
 * Bot detection from what the agent reports (automation markers) and the user agent
 * (crawler lists via `isbot`, plus AI crawlers/agents by name).
 */
import { isbotMatch } from 'isbot';
import type { Signals } from '../../protocol/index.js';
import type { BotInfo, BotResult } from '../../events/v4-event.js';

export interface BotVerdict {
  bot: BotResult;
  bot_type?: string;
  bot_info?: BotInfo;
}

/** AI crawlers and AI agents that announce themselves (name -> provider). */
const AI_AGENTS: readonly [RegExp, string, string][] = [
  [/GPTBot|ChatGPT-User|OAI-SearchBot/i, 'OpenAI', 'openai'],
  [/ClaudeBot|Claude-Web|Claude-User|anthropic-ai/i, 'Anthropic', 'anthropic'],
  [/PerplexityBot|Perplexity-User/i, 'Perplexity', 'perplexity'],
  [/Google-Extended|Google-CloudVertexBot/i, 'Google', 'google'],
  [/CCBot/i, 'Common Crawl', 'common_crawl'],
  [/Bytespider/i, 'ByteDance', 'bytedance'],
  [/meta-externalagent|meta-externalfetcher/i, 'Meta', 'meta'],
  [/Applebot-Extended/i, 'Apple', 'apple'],
  [/cohere-ai|cohere-training-data-crawler/i, 'Cohere', 'cohere'],
  [/Amazonbot/i, 'Amazon', 'amazon'],
  [/DuckAssistBot/i, 'DuckDuckGo', 'duckduckgo'],
  [/MistralAI-User/i, 'Mistral', 'mistral'],
];

/** Automation framework names, as they show in the globals the agent found. */
const AUTOMATION_TYPES: readonly [RegExp, string][] = [
  [/playwright/i, 'playwright'],
  [/puppeteer/i, 'puppeteer'],
  [/phantom/i, 'phantomjs'],
  [/nightmare/i, 'nightmare'],
  [/selenium|webdriver|\$cdc_|cdc_|\$wdc_|domAutomation/i, 'selenium'],
  [/electron/i, 'electron'],
];

interface AiAgent {
  provider: string;
  identity: string;
  name: string;
}

/**
 * The bot lists are long regular expressions, and one request's user agent is tested twice:
 * by the filtering rules (`http.user_agent.is_*_bot`) and for its event. The last user agent's
 * answers are kept, so the second test is free.
 */
let lastUserAgent: string | undefined;
let lastAiAgent: AiAgent | undefined;
let lastCrawler: string | null | undefined;

function remember(userAgent: string): void {
  if (userAgent === lastUserAgent) return;
  lastUserAgent = userAgent;
  lastAiAgent = undefined;
  for (const [pattern, provider, identity] of AI_AGENTS) {
    const match = pattern.exec(userAgent);
    if (match) {
      lastAiAgent = { provider, identity, name: match[0] };
      break;
    }
  }
  lastCrawler = undefined;
}

export function aiAgentOf(userAgent: string | undefined): AiAgent | undefined {
  if (!userAgent) return undefined;
  remember(userAgent);
  return lastAiAgent;
}

/** isbot's match (the crawler's name as the UA gives it), or null. */
function crawlerMatch(userAgent: string): string | null {
  remember(userAgent);
  if (lastCrawler === undefined) lastCrawler = isbotMatch(userAgent);
  return lastCrawler;
}

export function isAiBot(userAgent: string | undefined): boolean {
  return aiAgentOf(userAgent) !== undefined;
}

/** A crawler by the maintained `isbot` list that is not an AI agent and not headless automation. */
export function isCrawlerBot(userAgent: string | undefined): boolean {
  if (!userAgent || isAiBot(userAgent)) return false;
  const match = crawlerMatch(userAgent);
  return match !== null && !/headless/i.test(match);
}

/**
 * `bad` for automation (webdriver flag, headless UA, automation globals, a headless UA
 * header), `good` for self-announced crawlers and AI agents, `not_detected` otherwise.
 * Undefined when there was nothing to judge (no automation signal and no user agent).
 */
export function detectBot(input: { signals: Signals; userAgent?: string }): BotVerdict | undefined {
  const { automation } = input.signals;
  const ua = input.userAgent;
  const globals = automation?.globals ?? [];
  const headlessHeader = !!ua && /headless/i.test(ua);
  if (automation?.webdriver || automation?.headless_ua || globals.length > 0 || headlessHeader) {
    const fromGlobals = globals.map((g) => AUTOMATION_TYPES.find(([p]) => p.test(g))?.[1]).find(Boolean);
    const botType = fromGlobals ?? (automation?.headless_ua || headlessHeader ? 'headless_chrome' : 'webdriver');
    return { bot: 'bad', bot_type: botType };
  }
  const ai = aiAgentOf(ua);
  if (ai) {
    return {
      bot: 'good',
      bot_type: 'ai_agent',
      bot_info: { category: 'ai_agent', provider: ai.provider, name: ai.name, identity: ai.identity, confidence: 'medium' },
    };
  }
  const crawler = ua ? crawlerMatch(ua) : null;
  if (crawler) {
    // Self-declared by the UA only (no reverse-DNS verification), hence 'unverified'/'low'.
    return {
      bot: 'good',
      bot_type: 'crawler',
      bot_info: { category: 'crawler', provider: 'unknown', name: crawler, identity: 'unverified', confidence: 'low' },
    };
  }
  if (!automation && !ua) return undefined;
  return { bot: 'not_detected' };
}
