/**
 * urlHashing in Chromium: a real page URL whose query parameters come in another order gives
 * the same hashes, checked on what the real service stored for each event.
 */
import { createHash } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { expect, test } from 'vitest';
import { kyselyOf } from '../../src/service/store/index.js';
import type { TestService } from '../../test/helpers/test-service.js';
import { get, ok, startAgent } from './helpers/agent-page.js';
import { useAgentSuite } from './helpers/agent-suite.js';
import type { PageServer } from './helpers/page-server.js';

let svc: TestService;
let site: PageServer;
let browser: Browser;

useAgentSuite((suite) => ({ svc, site, browser } = suite));

const sha = (s: string) => createHash('sha256').update(s).digest('base64url');

/** Opens `path` (coming from `referrer`), identifies with urlHashing, and returns the stored event's url and referrer. */
async function storedUrls(path: string, urlHashing: Record<string, boolean>, referrer?: string) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(site.origin + path, referrer ? { referer: referrer } : {});
    await startAgent(page, { apiKey: svc.keys.publicKey, endpoints: svc.url, urlHashing });
    const { event_id } = ok(await get(page));
    const row = await kyselyOf(svc.service.ctx.store).selectFrom('events').select(['url', 'payload']).where('event_id', '=', event_id).executeTakeFirstOrThrow();
    return { url: row.url, referrer: (JSON.parse(row.payload) as { client_referrer?: string }).client_referrer };
  } finally {
    await context.close();
  }
}

test('reordered query parameters give the same stored hash; path, query and fragment are hashed separately', async () => {
  const all = { path: true, query: true, fragment: true };
  const a = await storedUrls('/orders/1234/invoice?user=alice&token=s3cret&lang=en#payment', all);
  const b = await storedUrls('/orders/1234/invoice?lang=en&user=alice&token=s3cret#payment', all);
  expect(a.url).toBe(b.url);
  expect(a.url).toBe(`${site.origin}/${sha('orders/1234/invoice')}?${sha('lang=en&token=s3cret&user=alice')}#${sha('payment')}`);
  expect(a.url).not.toContain('alice');
});

test('only the chosen parts are hashed, the referrer too, and empty parts stay empty', async () => {
  const r = await storedUrls('/search?q=shoes&page=2', { query: true }, 'https://partner.example/ads/click?id=77&src=mail');
  expect(r.url).toBe(`${site.origin}/search?${sha('page=2&q=shoes')}`);
  expect(r.referrer).toBe(`https://partner.example/ads/click?${sha('id=77&src=mail')}`);
  expect((await storedUrls('/', { path: true, query: true, fragment: true })).url).toBe(`${site.origin}/`);
});
