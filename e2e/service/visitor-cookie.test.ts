/**
 * `--visitor-cookie` in real Chromium: the demo page posts to its own origin, so the browser
 * keeps the service's HttpOnly cookie; when everything a script can write is deleted (as
 * WebKit's seven-day limit deletes it) the next visit is still identified by its token, where
 * without the option it has to be matched by its signals.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { VISITOR_COOKIE_NAME } from '../../src/service/ingestion/visitor-cookie.js';
import { startTestService, type TestService } from '../../test/helpers/test-service.js';
import { launchPersistentChromium } from '../helpers/chromium.js';

const opened: { dir: string; context: BrowserContext }[] = [];
const services: TestService[] = [];

afterAll(async () => {
  for (const { dir, context } of opened) {
    await context.close();
    await rm(dir, { recursive: true, force: true });
  }
  for (const s of services) await s.close();
});

/** A normal window of a fresh profile (storage on disk), on the demo page of `on`. */
async function openDemo(on: TestService): Promise<Page> {
  const dir = await mkdtemp(join(tmpdir(), 'tessera-e2e-cookie-'));
  const context = await launchPersistentChromium(dir);
  opened.push({ dir, context });
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${on.url}/`);
  return page;
}

/** What the demo page shows once identification is done. */
async function shown(page: Page): Promise<{ visitorId: string; found: string; confidence: string }> {
  const handle = await page.waitForFunction(() => {
    const text = document.getElementById('visitor-id')?.textContent ?? '';
    return text !== '' && text !== 'identifying…' ? text : null;
  });
  const visitorId = (await handle.jsonValue()) as string;
  expect(visitorId, `demo page failed: ${await page.locator('#error').textContent()}`).toMatch(/^[A-Za-z0-9]{20}$/);
  return {
    visitorId,
    found: (await page.locator('#visitor-found').textContent()) ?? '',
    confidence: (await page.locator('#confidence').textContent()) ?? '',
  };
}

/** Deletes what page scripts can write on the service's origin: storages, and the cookies a script can see. */
async function deleteScriptStorage(page: Page, on: TestService): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Storage.clearDataForOrigin', {
    origin: new URL(on.url).origin,
    storageTypes: 'local_storage,indexeddb,cache_storage,service_workers,file_systems,websql',
  });
  await cdp.detach();
  await page.evaluate(() => {
    sessionStorage.clear();
    for (const pair of document.cookie.split(';')) {
      const name = pair.split('=')[0]!.trim();
      if (name) document.cookie = `${name}=; max-age=0`;
    }
  });
  expect(await page.evaluate(() => document.cookie + localStorage.length + sessionStorage.length)).toBe('00');
}

describe.each([true, false])('the demo page with --visitor-cookie %s, after its script storage is deleted', (visitorCookie) => {
  it(visitorCookie ? 'is identified by the cookie\'s token' : 'is matched by its signals', async () => {
    const on = await startTestService({ config: { visitorCookie } });
    services.push(on);
    const page = await openDemo(on);
    const first = await shown(page);
    expect(first.found).toMatch(/^no/);

    const cookies = await page.context().cookies();
    const cookie = cookies.find((c) => c.name === VISITOR_COOKIE_NAME);
    if (visitorCookie) {
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
      // Page scripts cannot read it.
      expect(await page.evaluate(() => document.cookie)).not.toContain(VISITOR_COOKIE_NAME);
    } else {
      expect(cookie).toBeUndefined();
    }

    await deleteScriptStorage(page, on);
    await page.reload();
    const after = await shown(page);
    expect(after).toMatchObject({ visitorId: first.visitorId, found: 'yes' });
    if (visitorCookie) expect(after.confidence).not.toContain('linked without token');
    else expect(after.confidence).toContain('linked without token');
  });
});
