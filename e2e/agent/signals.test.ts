/**
 * Every signal source in real Chromium: values of the right shape, large values hashed, the
 * same values on a second collection, and the tampering inputs reacting to a page script
 * that replaces a canvas built-in; private mode told apart from a normal profile.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect, test } from 'vitest';
import type { IdentifyRequest } from '../../src/protocol/index.js';
import { SOURCES } from '../../src/agent/signals/index.js';
import { VERDICT_KEY } from '../../src/agent/signals/incognito.js';
import { DEFAULT_STORAGE_PREFIX } from '../../src/agent/options.js';
import { launchPersistentChromium } from '../helpers/chromium.js';
import type { TestService } from '../../test/helpers/test-service.js';
import { get, ok, recordRequests, startAgent } from './helpers/agent-page.js';
import { useAgentSuite, useFreshPage } from './helpers/agent-suite.js';
import type { PageServer } from './helpers/page-server.js';

let svc: TestService;
let site: PageServer;
let browser: Browser;
let context: BrowserContext;

useAgentSuite((suite) => ({ svc, site, browser } = suite));
useFreshPage(() => browser, (c) => {
  context = c;
});

const HASH = /^[\w-]{43}$/;

/** Two identifications from a fresh page; returns the two request bodies. */
async function collectTwice(initScript?: string, inContext = context, query = ''): Promise<IdentifyRequest[]> {
  const page = await inContext.newPage();
  if (initScript) await page.addInitScript(initScript);
  await page.goto(`${site.origin}/signals${query}`);
  const sent = recordRequests(page);
  await startAgent(page, { apiKey: svc.keys.publicKey, endpoints: svc.url });
  ok(await get(page));
  ok(await get(page));
  return sent;
}

test('every source yields a value or a named error, large values are hashes, and values are stable', async () => {
  const [first, second] = await collectTwice();
  const { signals, signal_errors: errors = {} } = first!;
  for (const name of Object.keys(SOURCES)) expect(name in signals || name in errors, name).toBe(true);
  // Headless Chromium on Linux lacks only these features.
  expect(Object.keys(errors).filter((k) => !['inverted_colors', 'device_memory'].includes(k))).toEqual([]);
  expect(signals.canvas).toEqual({ winding: true, geometry: expect.stringMatching(HASH), text: expect.stringMatching(HASH) });
  expect(signals.canvas!.geometry).not.toBe(signals.canvas!.text);
  expect(signals.webgl).toMatchObject({ vendor: expect.any(String), renderer: expect.any(String), params: expect.stringMatching(HASH), extensions: expect.stringMatching(HASH) });
  expect(signals.audio).toMatch(/^\d+\.\d+$/);
  expect(signals.math).toMatch(HASH);
  expect(signals.font_preferences).toMatch(HASH);
  // Debian's Chromium brings one font of each kind on the list.
  expect(signals.fonts).toEqual(expect.arrayContaining(['DejaVu Sans', 'Liberation Mono']));
  expect(signals.screen).toEqual({ width: 1280, height: 720, color_depth: 24, pixel_ratio: 1 });
  expect(signals.ua_data).toMatchObject({ brands: expect.arrayContaining(['Chromium']), mobile: false, platform: 'Linux' });
  expect(signals.ua_data!.brands.join()).not.toMatch(/\d/);
  expect(signals.architecture).toBe(process.arch.startsWith('arm') ? 127 : 255);
  expect(signals.automation).toMatchObject({ webdriver: true, headless_ua: true });
  expect(signals.tampering).toEqual({ canvas_mismatch: false, ua_platform_mismatch: false, overridden_natives: [] });
  expect(JSON.stringify(first!.signals).length).toBeLessThan(4000); // nothing raw and large
  expect(second!.signals).toEqual(first!.signals);
});

test('tampering: a page script that replaces and noises canvas reading is detected', async () => {
  const [sent] = await collectTwice(`
    // Per-call noise, as noise-injecting extensions add it: one pixel that differs on every read
    // (a counter, so two reads can never happen to draw the same colour).
    const real = HTMLCanvasElement.prototype.toDataURL;
    let calls = 0;
    HTMLCanvasElement.prototype.toDataURL = function () {
      const x = this.getContext('2d');
      x.fillStyle = 'rgb(' + (calls++ % 256) + ',2,3)';
      x.fillRect(0, 0, 1, 1);
      return real.apply(this, arguments);
    };
  `);
  expect(sent!.signals.tampering).toMatchObject({ canvas_mismatch: true, overridden_natives: ['HTMLCanvasElement.toDataURL'] });
});

test('an emulated phone: touch and a rotation-independent, rounded screen', async () => {
  await context.close();
  context = await browser.newContext({ viewport: { width: 412, height: 915 }, screen: { width: 412, height: 915 }, deviceScaleFactor: 2.625, isMobile: true, hasTouch: true });
  const [sent] = await collectTwice();
  expect(sent!.signals.screen).toEqual({ width: 915, height: 412, color_depth: 24, pixel_ratio: 2.63 });
  expect(sent!.signals.touch).toMatchObject({ touch_event: true, touch_start: true });
  expect(sent!.signals.touch!.max_touch_points).toBeGreaterThan(0);
});

// Chromium 138+ reports the same predictable quota (usage + 10 GiB here) in both modes; the
// suite's contexts are off the record, as incognito windows are.
test('incognito: an off-the-record context is private, a normal profile is not (Chromium\'s predictable quota)', async () => {
  const [inPrivate, again] = await collectTwice();
  expect(inPrivate!.signals.incognito).toEqual({ likely: true, method: 'opfs_flush' });
  expect(again!.signals.incognito).toEqual(inPrivate!.signals.incognito);
  const kept = (page: Page) => page.evaluate((key) => localStorage.getItem(key), DEFAULT_STORAGE_PREFIX + VERDICT_KEY);
  expect(await kept(context.pages().at(-1)!)).toBe('1');
  const dir = await mkdtemp(join(tmpdir(), 'tessera-profile-'));
  const normal = await launchPersistentChromium(dir);
  try {
    const [onDisk, onDiskAgain] = await collectTwice(undefined, normal);
    expect(onDisk!.signals.incognito).toEqual({ likely: false, method: 'opfs_flush' });
    expect(onDiskAgain!.signals.incognito).toEqual(onDisk!.signals.incognito);
    // The probe's file is removed: the profile's private file system is empty again.
    const page = normal.pages()[0] ?? (await normal.newPage());
    await page.goto(`${site.origin}/signals`);
    expect(await kept(page)).toBe('0');
    const left = await page.evaluate(async () => {
      const names: string[] = [];
      for await (const name of (await navigator.storage.getDirectory() as unknown as { keys(): AsyncIterable<string> }).keys()) names.push(name);
      return names;
    });
    expect(left).toEqual([]);
  } finally {
    await normal.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('incognito: a page whose Content-Security-Policy forbids workers gets the source named as failed, the rest collected', async () => {
  const [sent] = await collectTwice(undefined, context, `?csp=${encodeURIComponent("worker-src 'none'")}`);
  expect(sent!.signal_errors).toMatchObject({ incognito: 'error' });
  expect(sent!.signals.incognito).toBeUndefined();
  expect(sent!.signals.fonts!.length).toBeGreaterThan(0);
});
