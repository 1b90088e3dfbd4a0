/**
 * The product promise, end to end: the demo page of the real service, in real Chromium,
 * keeps one visitor ID through reloads, cookie clearing, clearing all site storage, a second
 * browser context and a browser upgrade, and gives another device a different ID.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devices, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { kyselyOf } from '../../src/service/store/index.js';
import { startTestService, type TestService } from '../../test/helpers/test-service.js';
import { launchChromium, launchPersistentChromium } from '../helpers/chromium.js';

let service: TestService;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  service = await startTestService();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

async function newPage(options: BrowserContextOptions = {}): Promise<Page> {
  const context = await browser.newContext(options);
  contexts.push(context);
  return context.newPage();
}

/** Loads (or reloads) the demo page and reads what it shows once identification is done. */
async function identify(page: Page, reload = false, on: TestService = service): Promise<{ visitorId: string; found: string }> {
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

async function storedEventCount(): Promise<number> {
  const row = await kyselyOf(service.service.ctx.store)
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Clears every storage of the service's origin in the page's context, cookies included. */
async function clearSiteData(page: Page, on: TestService): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Storage.clearDataForOrigin', { origin: new URL(on.url).origin, storageTypes: 'all' });
  await page.context().clearCookies();
  await cdp.detach();
  expect(await page.evaluate(() => document.cookie + localStorage.length)).toBe('0');
}

describe("README's first steps on a fresh service: open the demo page, clear all site data, reload", () => {
  let fresh: TestService;
  let profileDir: string;
  let normalWindow: BrowserContext;
  beforeAll(async () => {
    fresh = await startTestService();
    // A normal window, as a developer's own browser (contexts of launchChromium() are off the
    // record: the service takes their visits for private windows, which weigh differently).
    profileDir = await mkdtemp(join(tmpdir(), 'tessera-e2e-profile-'));
    normalWindow = await launchPersistentChromium(profileDir);
  });
  afterAll(async () => {
    await normalWindow?.close();
    await fresh?.close();
    if (profileDir) await rm(profileDir, { recursive: true, force: true });
  });

  // A browser the service met seconds ago and nothing else yet: no token came back, no second
  // storage, no other visitor. What a developer tries first, and what a fraudster does between
  // two sign-ups on a device the site has not seen before.
  it('the visitor ID stays, and stays again after a second clear', async () => {
    const page = await normalWindow.newPage();
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

describe('the demo page in real Chromium', () => {
  let original = '';
  let page: Page;

  it('shows a new visitor ID on the first visit and stores the event', async () => {
    const before = await storedEventCount();
    page = await newPage();
    const first = await identify(page);
    original = first.visitorId;
    expect(first.found).toMatch(/^no/);
    expect(await storedEventCount()).toBe(before + 1);
    // The demo lists the events of this visitor, the one just made among them.
    await page.waitForFunction(() => (document.getElementById('events')?.textContent ?? '').includes('.'));
  });

  it('keeps the ID after a reload', async () => {
    const again = await identify(page, true);
    expect(again.visitorId).toBe(original);
    expect(again.found).toBe('yes');
  });

  it('keeps the ID after clearing cookies only (the token survives in the other storages)', async () => {
    await page.context().clearCookies();
    expect((await identify(page, true)).visitorId).toBe(original);
  });

  it('keeps the ID after clearing all site storage (matched by signals)', async () => {
    await clearSiteData(page, service);
    expect((await identify(page, true)).visitorId).toBe(original);
  });

  it('gives a second browser context of the same browser the same ID', async () => {
    const other = await newPage();
    expect((await identify(other)).visitorId).toBe(original);
  });

  it('keeps the ID across a browser upgrade (a newer version in the user agent)', async () => {
    const userAgent = await page.evaluate(() => navigator.userAgent);
    const upgraded = userAgent.replace(/Chrome\/(\d+)\.[\d.]+/, (_m, major: string) => `Chrome/${Number(major) + 1}.0.0.0`);
    expect(upgraded).not.toBe(userAgent);
    const other = await newPage({ userAgent: upgraded });
    expect(await other.evaluate(() => navigator.userAgent)).toBe(upgraded);
    expect((await identify(other)).visitorId).toBe(original);
  });

  it('gives a context that emulates another device a different ID', async () => {
    const phone = await newPage({ ...devices['Pixel 7'], locale: 'de-DE', timezoneId: 'Europe/Berlin' });
    const result = await identify(phone);
    expect(result.visitorId).not.toBe(original);
    expect(result.found).toMatch(/^no/);
  });
});
