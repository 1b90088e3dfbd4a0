/** Building the v4 event without a server: user agent, bots, smart signals, omission, tags. */
import { describe, expect, it } from 'vitest';
import { detectBot } from '../../src/service/event-building/bot-detection.js';
import { buildEvent, type EventInput } from '../../src/service/event-building/build-event.js';
import { requestHash } from '../../src/service/event-building/request-hash.js';
import {
  detectPrivacySettings,
  detectTampering,
  detectVirtualMachine,
  SUSPECT_WEIGHTS,
  suspectScore,
} from '../../src/service/event-building/smart-signals.js';
import { parseUserAgent } from '../../src/service/event-building/user-agent.js';
import { newEventId } from '../../src/service/store/ids.js';
import { CHROME_UA, identifyRequest, sampleSignals } from '../helpers/identify-request.js';

const IPHONE_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

function input(overrides: Partial<EventInput> = {}): EventInput {
  return {
    eventId: '1700000000000.abcdef',
    now: 1_700_000_000_000,
    request: identifyRequest('pk'),
    environmentId: 'ae_1',
    ip: '203.0.113.7',
    userAgentHeader: CHROME_UA,
    identification: {
      visitorId: 'V'.repeat(20),
      visitorFound: true,
      confidence: { score: 0.99, version: '1.0' },
      firstSeenAt: 1_600_000_000_000,
      lastSeenAt: 1_690_000_000_000,
    },
    replayed: false,
    ...overrides,
  };
}

describe('event ids', () => {
  it('are <ms>.<6 url-safe characters> and differ', () => {
    const ids = new Set(Array.from({ length: 200 }, () => newEventId(1_708_102_555_327)));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(id).toMatch(/^1708102555327\.[A-Za-z0-9_-]{6}$/);
  });
});

describe('user agent parsing', () => {
  it('reads browser, OS and device', () => {
    expect(parseUserAgent(CHROME_UA)).toEqual({
      browser_name: 'Chrome',
      browser_major_version: '131',
      browser_full_version: '131.0.0.0',
      os: 'Windows',
      os_version: '10',
      device: 'Other',
    });
    expect(parseUserAgent(IPHONE_UA)).toMatchObject({ browser_name: 'Mobile Safari', browser_major_version: '17', os: 'iOS', os_version: '17.4', device: 'iPhone' });
  });
});

describe('bot detection', () => {
  const clean = sampleSignals();
  it('finds automation from the agent markers and headless user agents', () => {
    expect(detectBot({ signals: clean, userAgent: CHROME_UA })).toEqual({ bot: 'not_detected' });
    expect(detectBot({ signals: { ...clean, automation: { webdriver: true, headless_ua: false, globals: [] } }, userAgent: CHROME_UA })).toEqual({ bot: 'bad', bot_type: 'webdriver' });
    expect(detectBot({ signals: { ...clean, automation: { webdriver: true, headless_ua: false, globals: ['__playwright__binding__'] } } })?.bot_type).toBe('playwright');
    expect(detectBot({ signals: { ...clean, automation: { webdriver: false, headless_ua: false, globals: ['$cdc_asdjflasutopfhvcZLmcfl_'] } } })?.bot_type).toBe('selenium');
    expect(detectBot({ signals: clean, userAgent: 'Mozilla/5.0 HeadlessChrome/120.0.0.0 Safari/537.36' })).toEqual({ bot: 'bad', bot_type: 'headless_chrome' });
  });

  it('reports announced crawlers and AI agents as good bots', () => {
    const google = detectBot({ signals: {}, userAgent: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' });
    expect(google).toMatchObject({ bot: 'good', bot_type: 'crawler', bot_info: { category: 'crawler', identity: 'unverified' } });
    const gpt = detectBot({ signals: {}, userAgent: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)' });
    expect(gpt).toMatchObject({ bot: 'good', bot_type: 'ai_agent', bot_info: { provider: 'OpenAI', name: 'GPTBot' } });
  });

  it('has no verdict without any evidence', () => {
    expect(detectBot({ signals: {} })).toBeUndefined();
  });

  it("answers each user agent with its own verdict however they alternate (the answers kept per user agent), long ones too", () => {
    const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
    const CLAUDE = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)';
    const longCrawler = `${GOOGLEBOT} ${'x'.repeat(600)}`;
    for (let round = 0; round < 3; round++) {
      for (const [ua, kind] of [[CHROME_UA, undefined], [GOOGLEBOT, 'crawler'], [CLAUDE, 'ai_agent'], [longCrawler, 'crawler'], [`${CHROME_UA} ${'y'.repeat(600)}`, undefined]] as const) {
        const verdict = detectBot({ signals: {}, userAgent: ua });
        expect(verdict?.bot_type, ua.slice(0, 60)).toBe(kind);
        expect(verdict?.bot).toBe(kind ? 'good' : 'not_detected');
      }
    }
    expect(detectBot({ signals: {}, userAgent: CLAUDE })?.bot_info).toMatchObject({ provider: 'Anthropic', name: 'ClaudeBot' });
  });
});

describe('smart signals', () => {
  it('virtual machine from software or hypervisor GPUs, only when WebGL was collected', () => {
    const webgl = (renderer: string) => ({ webgl: { vendor: 'x', renderer, params: 'p', extensions: 'e' } });
    expect(detectVirtualMachine(webgl('ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero)), SwiftShader driver)'))).toBe(true);
    expect(detectVirtualMachine(webgl('llvmpipe (LLVM 15.0.6, 256 bits)'))).toBe(true);
    expect(detectVirtualMachine(webgl('SVGA3D; build: RELEASE; LLVM; VMware'))).toBe(true);
    expect(detectVirtualMachine(webgl('ANGLE (NVIDIA, NVIDIA GeForce RTX 3060 Direct3D11)'))).toBe(false);
    expect(detectVirtualMachine({})).toBeUndefined();
  });

  it('tampering from UA/platform mismatch, overridden natives and a UA header disagreeing with the page', () => {
    const tampering = (t: Partial<NonNullable<ReturnType<typeof sampleSignals>['tampering']>>) => ({
      ...sampleSignals(),
      tampering: { canvas_mismatch: false, ua_platform_mismatch: false, overridden_natives: [], ...t },
    });
    expect(detectTampering(tampering({}), CHROME_UA)).toMatchObject({ tampering: false, tampering_details: { anomaly_score: 0, anti_detect_browser: false } });
    expect(detectTampering(tampering({ ua_platform_mismatch: true }), CHROME_UA)).toMatchObject({ tampering: true, tampering_confidence: 'medium' });
    expect(detectTampering(tampering({}), 'Mozilla/5.0 Firefox/120')).toMatchObject({ tampering: true });
    const antiDetect = detectTampering(tampering({ overridden_natives: ['HTMLCanvasElement.toDataURL'], canvas_mismatch: true, ua_platform_mismatch: true }), CHROME_UA);
    expect(antiDetect).toMatchObject({ tampering: true, tampering_confidence: 'high', tampering_details: { anti_detect_browser: true } });
    expect(antiDetect!.tampering_details.anomaly_score).toBeCloseTo(0.67, 2);
    expect(detectTampering({}, CHROME_UA)).toBeUndefined();
  });

  it('privacy settings from canvas noise or cookies off', () => {
    expect(detectPrivacySettings(sampleSignals())).toBe(false);
    expect(detectPrivacySettings({ tampering: { canvas_mismatch: true, ua_platform_mismatch: false, overridden_natives: [] } })).toBe(true);
    expect(detectPrivacySettings({ storage: { session_storage: true, local_storage: true, indexed_db: true, open_database: false, cookies: false } })).toBe(true);
    expect(detectPrivacySettings({})).toBeUndefined();
  });

  it('suspect score is the documented weighted sum', () => {
    expect(suspectScore({})).toBe(0);
    expect(suspectScore({ bot: 'good', incognito: true })).toBe(SUSPECT_WEIGHTS.incognito);
    expect(suspectScore({ bot: 'bad', tampering: true, replayed: true, virtual_machine: true, developer_tools: true, incognito: true, privacy_settings: true, events5Minutes: 50 })).toBe(
      Object.values(SUSPECT_WEIGHTS).reduce((a, b) => a + b, 0),
    );
  });
});

describe('buildEvent', () => {
  it('maps the request and the identification into the v4 event', () => {
    const event = buildEvent(input({ request: identifyRequest('pk', { linked_id: 'L1', tags: { a: 1 }, referrer: 'https://r.example/' }) }));
    expect(event).toMatchObject({
      event_id: '1700000000000.abcdef',
      timestamp: 1_700_000_000_000,
      environment_id: 'ae_1',
      linked_id: 'L1',
      tags: { a: 1 },
      url: 'https://shop.example.com/checkout',
      client_referrer: 'https://r.example/',
      ip_address: '203.0.113.7',
      user_agent: CHROME_UA,
      device: 'Other',
      os: 'Windows',
      os_version: '10',
      sdk: { platform: 'js', version: '4.0.0' },
      identification: {
        visitor_id: 'V'.repeat(20),
        visitor_found: true,
        confidence: { score: 0.99, version: '1.0' },
        first_seen_at: 1_600_000_000_000,
        last_seen_at: 1_690_000_000_000,
      },
      suspect: false,
      replayed: false,
      bot: 'not_detected',
      incognito: false,
      developer_tools: false,
      tampering: false,
      privacy_settings: false,
      virtual_machine: false,
      suspect_score: 0,
    });
    expect(event.raw_device_attributes).toEqual(sampleSignals());
  });

  it('omits what the agent did not send, never null', () => {
    const event = buildEvent(input({ request: identifyRequest('pk', { signals: {} }), userAgentHeader: undefined }));
    for (const field of ['linked_id', 'tags', 'client_referrer', 'user_agent', 'browser_details', 'device', 'os', 'bot', 'incognito', 'developer_tools', 'tampering', 'tampering_details', 'privacy_settings', 'virtual_machine', 'velocity']) {
      expect(event).not.toHaveProperty(field);
    }
    expect(Object.values(event)).not.toContain(null);
    expect(event.raw_device_attributes).toEqual({});
  });

  it('wraps a primitive tag as { tag }', () => {
    expect(buildEvent(input({ request: identifyRequest('pk', { tags: 'vip' }) })).tags).toEqual({ tag: 'vip' });
    expect(buildEvent(input({ request: identifyRequest('pk', { tags: null }) }))).not.toHaveProperty('tags');
  });

  it('counts replay and automation into the suspect score', () => {
    const signals = sampleSignals({ automation: { webdriver: true, headless_ua: false, globals: [] } });
    const event = buildEvent(input({ request: identifyRequest('pk', { signals }), replayed: true }));
    expect(event.suspect_score).toBe(SUSPECT_WEIGHTS.bot_bad + SUSPECT_WEIGHTS.replayed);
  });
});

describe('request hash (replay detection)', () => {
  it('needs a token and changes with anything the page sends', () => {
    expect(requestHash(identifyRequest('pk'))).toBeUndefined();
    const base = identifyRequest('pk', { token: 't1' });
    expect(requestHash(base)).toBe(requestHash({ ...base }));
    expect(requestHash({ ...base, token: 't2' })).not.toBe(requestHash(base));
    expect(requestHash({ ...base, linked_id: 'x' })).not.toBe(requestHash(base));
    expect(requestHash({ ...base, signals: sampleSignals({ timezone: 'UTC' }) })).not.toBe(requestHash(base));
  });
});
