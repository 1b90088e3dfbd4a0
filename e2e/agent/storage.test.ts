/**
 * The agent's browser storage in real Chromium against the real service: the result cache in
 * each storage (hit, expiry under Playwright's clock, reload), and the visitor token kept in
 * the cookie, localStorage and IndexedDB, restored from whichever survives.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import type { TestService } from '../../test/helpers/test-service.js';
import { get, ok, recordRequests, startAgent } from './helpers/agent-page.js';
import { useAgentSuite, useFreshPage } from './helpers/agent-suite.js';
import type { PageServer } from './helpers/page-server.js';

let svc: TestService;
let site: PageServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;

useAgentSuite((suite) => ({ svc, site, browser } = suite));
useFreshPage(() => browser, (c, p) => {
  context = c;
  page = p;
});

const options = (extra: Record<string, unknown> = {}) => ({ apiKey: svc.keys.publicKey, endpoints: svc.url, ...extra });

describe.each(['sessionStorage', 'localStorage', 'agent'] as const)('result cache in %s', (storage) => {
  test('a hit returns the same event with cache_hit true and sends nothing', async () => {
    await page.goto(`${site.origin}/cache-hit`);
    const sent = recordRequests(page);
    await startAgent(page, options({ cache: { storage, duration: 'optimize-cost' } }));
    const first = ok(await get(page, { linkedId: 'acct-1' }));
    const second = ok(await get(page, { linkedId: 'acct-1' }));
    expect(first.cache_hit).toBe(false);
    expect(second).toEqual({ ...first, cache_hit: true });
    expect(sent).toHaveLength(1);
    const other = ok(await get(page, { linkedId: 'acct-2' }));
    expect(other).toMatchObject({ cache_hit: false, visitor_id: first.visitor_id });
    expect(sent).toHaveLength(2);
  });

  test('an entry expires after its duration (page clock moved forward)', async () => {
    await page.clock.install();
    await page.goto(`${site.origin}/cache-expiry`);
    await startAgent(page, options({ cache: { storage, duration: 60 } }));
    const first = ok(await get(page));
    await page.clock.fastForward(59_000);
    expect(ok(await get(page)).event_id).toBe(first.event_id);
    await page.clock.fastForward(2_000);
    const fresh = ok(await get(page));
    expect(fresh.cache_hit).toBe(false);
    expect(fresh.event_id).not.toBe(first.event_id);
  });

  test(`after a reload the cached result is ${storage == 'agent' ? 'gone' : 'still there'}`, async () => {
    await page.goto(`${site.origin}/cache-reload`);
    await startAgent(page, options({ cache: { storage, duration: 'aggressive' } }));
    const before = ok(await get(page));
    await page.reload();
    await startAgent(page, options({ cache: { storage, duration: 'aggressive' } }));
    const after = ok(await get(page));
    if (storage == 'agent') expect(after).toMatchObject({ cache_hit: false, visitor_id: before.visitor_id });
    else expect(after).toEqual({ ...before, cache_hit: true });
    expect(after.event_id == before.event_id).toBe(storage != 'agent');
  });
});

describe('visitor token', () => {
  const tokenCookie = async () => (await context.cookies()).find((c) => c.name === '_vid_t');

  test('is kept in a first-party cookie for a year (SameSite=Lax, not Secure on http), localStorage and IndexedDB', async () => {
    await page.goto(`${site.origin}/token`);
    await startAgent(page, options());
    ok(await get(page));
    const cookie = await tokenCookie();
    expect(cookie).toMatchObject({ path: '/', sameSite: 'Lax', secure: false, httpOnly: false, domain: '127.0.0.1' });
    const year = Date.now() / 1000 + 31536000;
    expect(Math.abs(cookie!.expires - year)).toBeLessThan(120);
    const token = decodeURIComponent(cookie!.value);
    expect(token.length).toBeGreaterThan(10);
    const [local, idb] = await page.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const r = indexedDB.open('_vid_db');
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error ?? new Error('indexedDB.open failed'));
      });
      const value = await new Promise((resolve) => {
        const r = db.transaction('kv').objectStore('kv').get('_vid_t');
        r.onsuccess = () => resolve(r.result);
      });
      return [localStorage.getItem('_vid_t'), value];
    });
    expect([local, idb]).toEqual([token, token]);
  });

  test.each([
    ['cookies', (p: Page, c: BrowserContext) => c.clearCookies()],
    ['localStorage', (p: Page) => p.evaluate(() => localStorage.clear())],
    ['cookies and localStorage (IndexedDB remains)', async (p: Page, c: BrowserContext) => {
      await c.clearCookies();
      await p.evaluate(() => localStorage.clear());
    }],
  ])('is restored after clearing %s, and the cleared storage is repaired', async (_, clear) => {
    await page.goto(`${site.origin}/restore`);
    await startAgent(page, options());
    const first = ok(await get(page));
    const token = decodeURIComponent((await tokenCookie())!.value);
    await clear(page, context);
    await page.reload();
    const sent = recordRequests(page);
    await startAgent(page, options());
    // The agent repairs the storages as soon as it has read the token, before any get().
    await page.waitForFunction((t) => localStorage.getItem('_vid_t') === t && document.cookie.includes('_vid_t='), token);
    const second = ok(await get(page));
    expect(sent[0]!.token).toBe(token);
    expect(second).toMatchObject({ visitor_found: true, visitor_id: first.visitor_id });
  });

  test('storageKeyPrefix names the cookie and the keys', async () => {
    await page.goto(`${site.origin}/prefix`);
    await startAgent(page, options({ storageKeyPrefix: 'shop_' }));
    ok(await get(page));
    expect((await context.cookies()).map((c) => c.name)).toEqual(['shop_t']);
    // The token, and the private-mode verdict of this (off-the-record) context.
    expect(await page.evaluate(() => Object.keys(localStorage).sort())).toEqual(['shop_pm', 'shop_t']);
    expect(await page.evaluate(() => localStorage.getItem('shop_pm'))).toBe('1');
  });
});
