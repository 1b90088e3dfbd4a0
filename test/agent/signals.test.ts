/**
 * One test (or more) per signal source, in happy-dom. Where happy-dom lacks a browser feature
 * (canvas, WebGL, audio, fonts) the test checks that the source reports it as unsupported; the
 * real values are checked in Chromium by e2e/agent/signals.test.ts.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { SOURCES } from '../../src/agent/signals/index.js';
import { incognito as incognitoSource, opfsFlushProbe, VERDICT_KEY } from '../../src/agent/signals/incognito.js';

const saved: [object, string, PropertyDescriptor | undefined][] = [];
/** Replaces `obj`'s own `key` (or shadows an inherited one), undone after the test. */
function define(obj: object, key: string, value: unknown, descriptor: PropertyDescriptor = { value, writable: true }) {
  saved.push([obj, key, Object.getOwnPropertyDescriptor(obj, key)]);
  Object.defineProperty(obj, key, { ...descriptor, configurable: true });
}
afterEach(() => {
  for (const [obj, key, d] of saved.splice(0).reverse())
    if (d) Object.defineProperty(obj, key, d);
    else delete (obj as Record<string, unknown>)[key];
});

/** A matchMedia that matches exactly the given "feature:value" pairs. */
const mediaWith = (matching: string[]) =>
  define(window, 'matchMedia', (q: string) => ({ matches: matching.includes(q.slice(1, -1).replace(/\s/g, '')) }));

const run = async <K extends keyof typeof SOURCES>(k: K) => (SOURCES[k] as () => unknown)();

describe('navigator values', () => {
  test('user_agent, platform, vendor, hardware_concurrency are read as they are', async () => {
    define(navigator, 'platform', 'MacIntel');
    define(navigator, 'vendor', 'Apple Computer, Inc.');
    define(navigator, 'hardwareConcurrency', 12);
    expect(await run('user_agent')).toBe(navigator.userAgent);
    expect(await run('platform')).toBe('MacIntel');
    expect(await run('vendor')).toBe('Apple Computer, Inc.');
    expect(await run('hardware_concurrency')).toBe(12);
  });

  test('device_memory: the value, or unsupported', async () => {
    expect(await run('device_memory')).toBeUndefined();
    define(navigator, 'deviceMemory', 8);
    expect(await run('device_memory')).toBe(8);
  });

  test('languages: navigator.languages, or [navigator.language] when empty', async () => {
    define(navigator, 'languages', ['fr-CA', 'fr', 'en']);
    expect(await run('languages')).toEqual(['fr-CA', 'fr', 'en']);
    define(navigator, 'languages', []);
    define(navigator, 'language', 'de-DE');
    expect(await run('languages')).toEqual(['de-DE']);
  });

  test('vendor_flavors: browser globals present, sorted', async () => {
    define(window, 'safari', {});
    define(window, 'chrome', {});
    expect(await run('vendor_flavors')).toEqual(['chrome', 'safari']);
  });

  test('ua_data: brands without versions or the rotating "Not A Brand"', async () => {
    expect(await run('ua_data')).toBeUndefined();
    define(navigator, 'userAgentData', {
      brands: [
        { brand: 'Google Chrome', version: '131' },
        { brand: 'Not_A Brand', version: '24' },
        { brand: 'Chromium', version: '131' },
      ],
      mobile: false,
      platform: 'Windows',
    });
    expect(await run('ua_data')).toEqual({ brands: ['Chromium', 'Google Chrome'], mobile: false, platform: 'Windows' });
  });

  test('plugins: names, sorted', async () => {
    define(navigator, 'plugins', [{ name: 'PDF Viewer' }, { name: 'Chrome PDF Viewer' }]);
    expect(await run('plugins')).toEqual(['Chrome PDF Viewer', 'PDF Viewer']);
  });

  test('pdf_viewer_enabled', async () => {
    define(navigator, 'pdfViewerEnabled', true);
    expect(await run('pdf_viewer_enabled')).toBe(true);
  });

  test('touch', async () => {
    define(navigator, 'maxTouchPoints', 5);
    define(window, 'ontouchstart', null);
    expect(await run('touch')).toMatchObject({ max_touch_points: 5, touch_start: true, touch_event: expect.any(Boolean) });
  });
});

describe('time zone', () => {
  const tz = process.env.TZ;
  afterEach(() => {
    process.env.TZ = tz;
  });
  test.each([
    ['America/New_York', 300],
    ['Asia/Tokyo', -540],
    ['Australia/Sydney', -600],
    ['UTC', 0],
  ])('%s: name and DST-independent offset %d', async (zone, offset) => {
    process.env.TZ = zone;
    expect(await run('timezone')).toBe(zone);
    expect(await run('timezone_offset')).toBe(offset);
  });
});

test('timezone: Temporal when the browser has it', async () => {
  define(globalThis, 'Temporal', { Now: { timeZoneId: () => 'Pacific/Chatham' } });
  expect(await run('timezone')).toBe('Pacific/Chatham');
});

test('screen: larger side first, pixel ratio rounded', async () => {
  define(screen, 'width', 412);
  define(screen, 'height', 915);
  define(screen, 'colorDepth', 30);
  define(window, 'devicePixelRatio', 2.625);
  expect(await run('screen')).toEqual({ width: 915, height: 412, color_depth: 30, pixel_ratio: 2.63 });
  define(screen, 'width', 915);
  define(screen, 'height', 412);
  expect(await run('screen')).toMatchObject({ width: 915, height: 412 });
});

describe('media features', () => {
  test('color_gamut picks the widest match', async () => {
    mediaWith(['color-gamut:srgb', 'color-gamut:p3']);
    expect(await run('color_gamut')).toBe('p3');
    mediaWith([]);
    expect(await run('color_gamut')).toBeUndefined();
  });

  test.each([
    ['no-preference', 0],
    ['more', 1],
    ['less', -1],
    ['custom', 10],
  ])('contrast %s -> %d', async (v, n) => {
    mediaWith([`prefers-contrast:${v}`]);
    expect(await run('contrast')).toBe(n);
  });

  test.each([
    ['reduced_motion', 'prefers-reduced-motion', 'reduce', 'no-preference'],
    ['reduced_transparency', 'prefers-reduced-transparency', 'reduce', 'no-preference'],
    ['forced_colors', 'forced-colors', 'active', 'none'],
    ['inverted_colors', 'inverted-colors', 'inverted', 'none'],
    ['hdr', 'dynamic-range', 'high', 'standard'],
  ] as const)('%s: true, false, or unsupported', async (name, feature, on, off) => {
    mediaWith([`${feature}:${on}`]);
    expect(await run(name)).toBe(true);
    mediaWith([`${feature}:${off}`]);
    expect(await run(name)).toBe(false);
    mediaWith([]);
    expect(await run(name)).toBeUndefined();
  });

  test('color_scheme', async () => {
    mediaWith(['prefers-color-scheme:dark']);
    expect(await run('color_scheme')).toBe('dark');
    mediaWith(['prefers-color-scheme:light']);
    expect(await run('color_scheme')).toBe('light');
  });

  test('monochrome: bits per pixel, 0 for color, unsupported', async () => {
    mediaWith(['min-monochrome:0', 'max-monochrome:0']);
    expect(await run('monochrome')).toBe(0);
    mediaWith(['min-monochrome:0', ...Array.from({ length: 100 }, (_, i) => `max-monochrome:${i + 8}`)]);
    expect(await run('monochrome')).toBe(8);
    mediaWith([]);
    expect(await run('monochrome')).toBeUndefined();
  });
});

test('math: a stable URL-safe SHA-256', async () => {
  const a = await run('math');
  expect(a).toMatch(/^[\w-]{43}$/);
  expect(await run('math')).toBe(a);
});

test('architecture: the NaN top byte of this CPU', async () => {
  expect(await run('architecture')).toBe(process.arch.startsWith('arm') ? 127 : 255);
});

test('storage: availability of each storage', async () => {
  expect(await run('storage')).toEqual({
    session_storage: true,
    local_storage: true,
    indexed_db: typeof indexedDB != 'undefined',
    open_database: false,
    cookies: navigator.cookieEnabled,
  });
  define(window, 'openDatabase', () => null);
  define(window, 'localStorage', undefined, {
    get() {
      throw new DOMException('denied', 'SecurityError');
    },
  });
  expect(await run('storage')).toMatchObject({ local_storage: false, open_database: true });
});

test('apple_pay: -1 absent, 1/0 from canMakePayments, -2 when it throws', async () => {
  expect(await run('apple_pay')).toBe(-1);
  define(window, 'ApplePaySession', { canMakePayments: () => true });
  expect(await run('apple_pay')).toBe(1);
  define(window, 'ApplePaySession', { canMakePayments: () => false });
  expect(await run('apple_pay')).toBe(0);
  define(window, 'ApplePaySession', {
    canMakePayments: () => {
      throw new Error('insecure');
    },
  });
  expect(await run('apple_pay')).toBe(-2);
});

describe('rendering sources report unsupported without canvas, WebGL or audio (happy-dom has none)', () => {
  test.each(['canvas', 'webgl', 'audio', 'fonts', 'font_preferences'] as const)('%s', async (name) => {
    expect(await run(name)).toBeUndefined();
  });
});

describe('smart-signal inputs', () => {
  test('automation: webdriver flag, headless UA, automation globals and attributes', async () => {
    define(navigator, 'webdriver', false); // happy-dom says true
    expect(await run('automation')).toEqual({ webdriver: false, headless_ua: false, globals: [] });
    define(navigator, 'webdriver', true);
    define(navigator, 'userAgent', 'Mozilla/5.0 (X11; Linux x86_64) HeadlessChrome/131.0.0.0 Safari/537.36');
    define(window, '__nightmare', {});
    define(window, 'driver', {}); // a page's own global of that name is not a marker
    // ChromeDriver assigns its cache key as a plain (enumerable) property.
    define(document, '$cdc_asdjflasutopfhvcZLmcfl_', {}, { value: {}, enumerable: true });
    document.documentElement.setAttribute('selenium', '');
    try {
      expect(await run('automation')).toEqual({
        webdriver: true,
        headless_ua: true,
        globals: ['__nightmare', 'selenium', '$cdc_asdjflasutopfhvcZLmcfl_'],
      });
    } finally {
      document.documentElement.removeAttribute('selenium');
    }
  });

  test('incognito: Chromium quota heuristic', async () => {
    expect(await run('incognito')).toEqual({ likely: false, method: 'none' });
    define(performance, 'memory', { jsHeapSizeLimit: 4096 * 1048576 });
    define(navigator, 'storage', { estimate: async () => ({ quota: 2000 * 1048576 }) });
    expect(await run('incognito')).toEqual({ likely: true, method: 'quota', quota_mb: 2000 });
    define(navigator, 'storage', { estimate: async () => ({ quota: 300000 * 1048576 }) });
    expect(await run('incognito')).toEqual({ likely: false, method: 'quota', quota_mb: 300000 });
  });

  test("incognito: Chromium's predictable quota (usage + whole GiB) leaves the verdict to a worker's file system probe, kept in localStorage under the prefix", async () => {
    const key = 'shop_' + VERDICT_KEY;
    const incognito = () => incognitoSource('shop_');
    define(performance, 'memory', { jsHeapSizeLimit: 4096 * 1048576 });
    define(navigator, 'storage', { estimate: async () => ({ quota: 10 * 1024 * 1048576 + 5000, usage: 5000 }) });
    // The browser's Worker (happy-dom has none): answers with what the probe would post.
    let answer: boolean | undefined;
    let workers = 0;
    define(globalThis, 'Worker', class {
      onmessage?: (e: { data: unknown }) => void;
      constructor() {
        workers++;
        setTimeout(() => this.onmessage?.({ data: answer }));
      }
    });
    try {
      answer = true;
      expect(await incognito()).toEqual({ likely: true, method: 'opfs_flush' });
      expect(localStorage.getItem(key)).toBe('1');
      answer = false;
      expect(await incognito()).toEqual({ likely: true, method: 'opfs_flush' }); // kept: no probe
      expect(workers).toBe(1);
      localStorage.removeItem(key);
      expect(await incognito()).toEqual({ likely: false, method: 'opfs_flush' });
      expect(localStorage.getItem(key)).toBe('0');
      localStorage.removeItem(key);
      answer = undefined; // the file system refused: no verdict, nothing kept
      await expect(incognito()).rejects.toThrow('opfs');
      expect(localStorage.getItem(key)).toBeNull();
      expect(workers).toBe(3);
    } finally {
      localStorage.removeItem(key);
    }
  });

  /**
   * What opfsFlushProbe posts for rounds of [write ms, flush ms], run against a file system
   * whose write and flush advance performance.now() by those times (happy-dom has no origin
   * private file system; the real one is probed in Chromium by e2e/agent/signals.test.ts).
   */
  let roundsRun = 0;
  async function flushProbeVerdict(rounds: [number, number][] | 'refused'): Promise<unknown> {
    let now = 0;
    let round = 0;
    const removed: string[] = [];
    const handle = {
      write: () => { now += (rounds as [number, number][])[round]![0]; return 1; },
      flush: () => { now += (rounds as [number, number][])[round++]![1]; },
      close: () => {},
    };
    define(performance, 'now', () => now);
    define(navigator, 'storage', {
      getDirectory: async () => {
        if (rounds === 'refused') throw new Error('SecurityError');
        return { getFileHandle: async () => ({ createSyncAccessHandle: async () => handle }), removeEntry: async (name: string) => void removed.push(name) };
      },
    });
    const posted = new Promise((resolve) => define(globalThis, 'postMessage', resolve));
    define(globalThis, 'close', () => {});
    opfsFlushProbe();
    const verdict = await posted;
    if (rounds !== 'refused') expect(removed).toHaveLength(1); // its file is gone
    roundsRun = round;
    return verdict;
  }

  test('incognito: the file system probe lets each round vote, so one round held up by a busy machine does not flip it', async () => {
    // Incognito: flushes measure zero, writes cross to the browser process.
    expect(await flushProbeVerdict([[1.3, 0], [0.6, 0], [0.5, 0], [0.8, 0], [0.6, 0]])).toBe(true);
    // The same with one flush held up 12 ms (more than all the writes together).
    expect(await flushProbeVerdict([[1.3, 0], [0.6, 12], [0.5, 0], [0.8, 0], [0.6, 0]])).toBe(true);
    // On disk a flush is an fsync; one may still measure zero.
    expect(await flushProbeVerdict([[0.4, 0.5], [0.1, 0], [0.1, 2.3], [0, 3.9], [0.1, 0.2]])).toBe(false);
    // Held up twice, most rounds still vote for memory; three held-up rounds make a miss.
    expect(await flushProbeVerdict([[1.3, 4], [0.6, 0], [0.5, 7], [0.8, 0], [0.6, 0]])).toBe(true);
    expect(await flushProbeVerdict([[1.3, 4], [0.6, 0.2], [0.5, 7], [0.8, 0], [0.6, 0]])).toBe(false);
    // A device so fast that nothing measures: not private (a miss, never a false alarm).
    expect(await flushProbeVerdict([[0, 0], [0, 0], [0, 0], [0, 0], [0, 0]])).toBe(false);
    expect(await flushProbeVerdict('refused')).toBeUndefined();
  });

  test('incognito: the file system probe stops once three rounds agree (each write costs milliseconds in incognito)', async () => {
    expect(await flushProbeVerdict([[1.3, 0], [0.6, 0], [0.5, 0], [0.8, 0], [0.6, 0]])).toBe(true);
    expect(roundsRun).toBe(3);
    expect(await flushProbeVerdict([[0.4, 0.5], [0.1, 1], [0.1, 2.3], [0, 3.9], [0.1, 0.2]])).toBe(false);
    expect(roundsRun).toBe(3);
    // Split votes take every round: two held up, then three in memory.
    expect(await flushProbeVerdict([[1.3, 4], [0.6, 0], [0.5, 7], [0.8, 0], [0.6, 0]])).toBe(true);
    expect(roundsRun).toBe(5);
    expect(await flushProbeVerdict([[1.3, 0], [0.6, 4], [0.5, 0], [0.8, 7], [0.6, 3]])).toBe(false);
    expect(roundsRun).toBe(5);
  });

  test('incognito: Safari refuses the private file system', async () => {
    define(navigator, 'storage', { getDirectory: () => Promise.reject(new Error('UnknownError: unknown transient reason')) });
    expect(await run('incognito')).toEqual({ likely: true, method: 'opfs' });
    define(navigator, 'storage', { getDirectory: async () => ({}) });
    expect(await run('incognito')).toEqual({ likely: false, method: 'opfs' });
  });

  test('developer_tools: a docked pane makes the window much larger than the viewport', async () => {
    expect(await run('developer_tools')).toBe(false);
    define(window, 'outerWidth', innerWidth + 400);
    expect(await run('developer_tools')).toBe(true);
  });

  test('tampering: UA/platform mismatch and replaced built-ins', async () => {
    define(navigator, 'userAgent', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/131.0.0.0');
    define(navigator, 'platform', 'Win32');
    const honest = (await run('tampering')) as { ua_platform_mismatch: boolean; overridden_natives: string[]; canvas_mismatch: boolean };
    expect(honest).toMatchObject({ ua_platform_mismatch: false, canvas_mismatch: false });
    define(navigator, 'platform', 'MacIntel');
    expect(await run('tampering')).toMatchObject({ ua_platform_mismatch: true });
    // happy-dom's built-ins are JavaScript, so they count as replaced; Chromium's are native (e2e).
    expect(honest.overridden_natives).toContain('HTMLCanvasElement.toDataURL');
    expect(honest.overridden_natives).not.toContain('Function.toString');
  });
});
