/**
 * Bot detection from what the agent reports (automation markers) and the user agent
 * (crawler lists via `isbot`, plus AI crawlers/agents by name).
 */
import { isbotMatch } from 'isbot';
import type { Signals } from '../../protocol/index.js';
import type { BotInfo, BotResult } from '../../events/v4-event.js';
import { boundedMemo } from '../store/bounded-memo.js';

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

interface UserAgentBots {
  ai: AiAgent | undefined;
  /** isbot's match (the crawler's name as the UA gives it), or null; null too for an AI agent (it is not asked). */
  crawler: string | null;
}

function botsOf(userAgent: string): UserAgentBots {
  for (const [pattern, provider, identity] of AI_AGENTS) {
    const match = pattern.exec(userAgent);
    if (match) return { ai: { provider, identity, name: match[0] }, crawler: null };
  }
  return { ai: undefined, crawler: isbotMatch(userAgent) };
}

/** User agents longer than this are tested each time: the memory below holds short, common ones. */
const MEMO_MAX_LENGTH = 512;

/**
 * The bot lists are long regular expressions (about 10 µs a test), and one request's user agent
 * is tested twice (by the filtering rules' `http.user_agent.is_*_bot` and for its event), while
 * a site's visitors send a few hundred distinct user agents over and over: their answers are
 * kept.
 */
const memoBots = boundedMemo(botsOf, 2000);

function userAgentBots(userAgent: string): UserAgentBots {
  return userAgent.length <= MEMO_MAX_LENGTH ? memoBots(userAgent) : botsOf(userAgent);
}

export function aiAgentOf(userAgent: string | undefined): AiAgent | undefined {
  return userAgent ? userAgentBots(userAgent).ai : undefined;
}

/** isbot's match (the crawler's name as the UA gives it), or null; asked only of a user agent that is no AI agent's. */
function crawlerMatch(userAgent: string): string | null {
  return userAgentBots(userAgent).crawler;
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
