/**
 * The product promise, end to end: the demo page of the real service, in real Chromium, in a
 * normal window and in a private one, keeps one visitor ID through reloads, cookie clearing,
 * clearing all site storage, another profile or window of the same browser, a private window
 * and a browser upgrade, and gives another device a different ID.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devices, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { kyselyOf } from '../../src/service/store/index.js';
import { startTestService, type TestService } from '../../test/helpers/test-service.js';
import { launchChromium, launchPersistentChromium } from '../helpers/chromium.js';

/** Private windows (off-the-record contexts) of one Chromium, for every suite. */
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

/** The private windows open now: each suite closes them before its service (closePrivateWindows). */
const privateContexts = new Set<BrowserContext>();

/** A new private window. */
async function newPage(options: BrowserContextOptions = {}): Promise<Page> {
  const context = await browser.newContext(options);
  privateContexts.add(context);
  return context.newPage();
}

/**
 * Closes every private window, so that no page holds a connection to (or a request in flight
 * on) the service a suite is about to close.
 */
async function closePrivateWindows(): Promise<void> {
  for (const context of privateContexts) await context.close();
  privateContexts.clear();
}

/** Loads (or reloads) the demo page and reads what it shows once identification is done. */
async function identify(page: Page, reload: boolean, on: TestService): Promise<{ visitorId: string; found: string }> {
  if (reload) await page.reload();
  else await page.goto(`${on.url}/`);
  const handle = await page.waitForFunction(() => {
    const text = document.getElementById('visitor-id')?.textContent ?? '';
    return text !== '' && text !== 'identifying…' ? text : null;
  });
  const visitorId = (await handle.jsonValue()) as string;
  const error = await page.locator('#error').textContent();
  expect(visitorId, `demo page failed: ${error}`).toMatch(/^[A-Za-z0-9]{20}$/);
  const found = (await page.locator('#visitor-found').textContent()) ?? '';
  return { visitorId, found };
}

async function storedEventCount(on: TestService): Promise<number> {
  const row = await kyselyOf(on.service.ctx.store)
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Whether the service took the visit for a private window (the stored event's `incognito`). */
async function storedAsPrivate(on: TestService, visitorId: string): Promise<boolean> {
  const row = await kyselyOf(on.service.ctx.store)
    .selectFrom('events')
    .select('incognito')
    .where('visitor_id', '=', visitorId)
    .orderBy('timestamp', 'desc')
    .executeTakeFirstOrThrow();
  // 1 on SQLite, true on PostgreSQL; null (not detected) counts as not private.
  return Boolean(row.incognito);
}

/** Clears every storage of the service's origin in the page's context, cookies included. */
async function clearSiteData(page: Page, on: TestService): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Storage.clearDataForOrigin', { origin: new URL(on.url).origin, storageTypes: 'all' });
  await page.context().clearCookies();
  await cdp.detach();
  expect(await page.evaluate(() => document.cookie + localStorage.length)).toBe('0');
}

/**
 * Where the demo page is opened. A normal window keeps its storage on disk, and the service
 * weighs its tokenless visits as a browser that lost its storage; a private window's visits are
 * private-mode visits (the agent detects them), weighed otherwise: both paths are held here.
 */
interface WindowKind {
  name: string;
  private: boolean;
  /** A window with storage of its own: a new profile for normal windows, a new private window. */
  open(options?: BrowserContextOptions): Promise<Page>;
  close(): Promise<void>;
}

function normalWindows(): WindowKind {
  const profiles: { dir: string; context: BrowserContext }[] = [];
  return {
    name: 'a normal window',
    private: false,
    async open(options = {}) {
      const dir = await mkdtemp(join(tmpdir(), 'tessera-e2e-profile-'));
      const context = await launchPersistentChromium(dir, options);
      profiles.push({ dir, context });
      return context.pages()[0] ?? context.newPage();
    },
    async close() {
      for (const { dir, context } of profiles) {
        await context.close();
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

function privateWindows(): WindowKind {
  return {
    name: 'a private window',
    private: true,
    open: (options) => newPage(options),
    close: closePrivateWindows,
  };
}

/** Playwright's device descriptors name the browser to launch, which a context does not take. */
function emulate(name: string): BrowserContextOptions {
  const descriptor = devices[name];
  if (!descriptor) throw new Error(`Playwright has no device named ${name}`);
  const { defaultBrowserType: _browser, ...options } = descriptor;
  return options;
}

describe("README's first steps on a fresh service: open the demo page, clear all site data, reload", () => {
  let fresh: TestService;
  // A normal window, as a developer's own browser (contexts of launchChromium() are off the
  // record: the service takes their visits for private windows, which weigh differently).
  const windows = normalWindows();
  beforeAll(async () => {
    fresh = await startTestService();
  });
  afterAll(async () => {
    await windows.close();
    await fresh?.close();
  });

  // A browser the service met seconds ago and nothing else yet: no token came back, no second
  // storage, no other visitor. What a developer tries first, and what a fraudster does between
  // two sign-ups on a device the site has not seen before.
  it('the visitor ID stays, and stays again after a second clear', async () => {
    const page = await windows.open();
    const first = await identify(page, false, fresh);
    expect(first.found).toMatch(/^no/);
    await clearSiteData(page, fresh);
    const afterClear = await identify(page, true, fresh);
    expect(afterClear).toEqual({ visitorId: first.visitorId, found: 'yes' });
    expect(await page.locator('#confidence').textContent()).toContain('linked without token');
    await clearSiteData(page, fresh);
    expect((await identify(page, true, fresh)).visitorId).toBe(first.visitorId);
  });
});

describe.each([normalWindows(), privateWindows()])('the demo page in real Chromium, in $name', (kind) => {
  let on: TestService;
  let original = '';
  let page: Page;
  beforeAll(async () => {
    // A service of its own: each kind starts from a service that has not seen this browser.
    on = await startTestService();
  });
  afterAll(async () => {
    await kind.close();
    await closePrivateWindows();
    await on?.close();
  });

  it('shows a new visitor ID on the first visit and stores the event', async () => {
    const before = await storedEventCount(on);
    page = await kind.open();
    const first = await identify(page, false, on);
    original = first.visitorId;
    expect(first.found).toMatch(/^no/);
    expect(await storedEventCount(on)).toBe(before + 1);
    expect(await storedAsPrivate(on, original)).toBe(kind.private);
    // The demo lists the events of this visitor, the one just made among them.
    await page.waitForFunction(() => (document.getElementById('events')?.textContent ?? '').includes('.'));
  });

  it('keeps the ID after a reload', async () => {
    const again = await identify(page, true, on);
    expect(again.visitorId).toBe(original);
    expect(again.found).toBe('yes');
  });

  it('keeps the ID after clearing cookies only (the token survives in the other storages)', async () => {
    await page.context().clearCookies();
    expect((await identify(page, true, on)).visitorId).toBe(original);
  });

  it('keeps the ID after clearing all site storage (matched by signals)', async () => {
    await clearSiteData(page, on);
    const afterClear = await identify(page, true, on);
    expect(afterClear.visitorId).toBe(original);
    expect(await page.locator('#confidence').textContent()).toContain('linked without token');
  });

  it('gives another window of the same browser, with storage of its own, the same ID', async () => {
    expect((await identify(await kind.open(), false, on)).visitorId).toBe(original);
  });

  it('gives a private window of the same browser the same ID', async () => {
    expect((await identify(await newPage(), false, on)).visitorId).toBe(original);
  });

  it('keeps the ID across a browser upgrade (a newer version in the user agent), without its storage', async () => {
    const userAgent = await page.evaluate(() => navigator.userAgent);
    const upgraded = userAgent.replace(/Chrome\/(\d+)\.[\d.]+/, (_m, major: string) => `Chrome/${Number(major) + 1}.0.0.0`);
    expect(upgraded).not.toBe(userAgent);
    const other = await kind.open({ userAgent: upgraded });
    expect(await other.evaluate(() => navigator.userAgent)).toBe(upgraded);
    expect((await identify(other, false, on)).visitorId).toBe(original);
  });

  it('gives a window that emulates another device a different ID', async () => {
    const phone = await kind.open({ ...emulate('Pixel 7'), locale: 'de-DE', timezoneId: 'Europe/Berlin' });
    const result = await identify(phone, false, on);
    expect(result.visitorId).not.toBe(original);
    expect(result.found).toMatch(/^no/);
  });
});
