/**
 * The agent builds in real Chromium against the real service (SQLite), from a page on another
 * origin: the IIFE by script tag, the ESM build by import, the CDN route of the service, and
 * the endpoint rules (fallback past a dead endpoint, no hosted fallback unless `region` is
 * named, server errors).
 */
import type { Browser, Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { kyselyOf } from '../../src/service/store/index.js';
import type { TestService } from '../../test/helpers/test-service.js';
import { ok, recordRequests, startAndGet } from './helpers/agent-page.js';
import { useAgentSuite, useFreshPage } from './helpers/agent-suite.js';
import { deadEndpoint } from '../../test/helpers/dead-endpoint.js';
import type { PageServer } from './helpers/page-server.js';

let svc: TestService;
let site: PageServer;
let browser: Browser;
let page: Page;

useAgentSuite((suite) => ({ svc, site, browser } = suite));
useFreshPage(() => browser, (_c, p) => {
  page = p;
});

const storedEvent = (eventId: string) =>
  kyselyOf(svc.service.ctx.store).selectFrom('events').selectAll().where('event_id', '=', eventId).executeTakeFirst();

describe('loading the agent', () => {
  test('IIFE by script tag: the global Tessera identifies the visitor and the event is stored', async () => {
    await page.goto(`${site.origin}/landing?load=iife`);
    const [r] = await startAndGet(page, { apiKey: svc.keys.publicKey, endpoints: svc.url }, { linkedId: 'user-1', tags: { plan: 'pro' } });
    const res = ok(r);
    expect(res).toMatchObject({ visitor_found: false, sealed_result: null });
    expect(res.visitor_id).toMatch(/\S{8,}/);
    expect('cache_hit' in res).toBe(false);
    const row = await storedEvent(res.event_id);
    expect(row).toMatchObject({ visitor_id: res.visitor_id, linked_id: 'user-1', url: `${site.origin}/landing?load=iife`, sdk_platform: 'js' });
    expect(JSON.parse(row!.payload)).toMatchObject({ tags: { plan: 'pro' } });
  });

  test('ESM build by import in a module script; the same browser keeps its visitor ID', async () => {
    await page.goto(`${site.origin}/esm?load=esm`);
    const [a, b] = await startAndGet(page, { apiKey: svc.keys.publicKey, endpoints: svc.url }, {}, { gets: 2 });
    expect(ok(b)).toMatchObject({ visitor_found: true, visitor_id: ok(a).visitor_id });
    expect(ok(b).event_id).not.toBe(ok(a).event_id);
  });

  test.each(['cdn-iife', 'cdn-esm'])('the service CDN route (%s) needs no options', async (load) => {
    await page.goto(`${site.origin}/cdn?load=${load}&svc=${encodeURIComponent(svc.url)}&key=${svc.keys.publicKey}`);
    const [r] = await startAndGet(page, {});
    expect(await storedEvent(ok(r).event_id)).toBeDefined();
  });
});

describe('endpoints', () => {
  test('a dead endpoint first: the agent falls back to the next one', async () => {
    await page.goto(`${site.origin}/fallback`);
    const sent = recordRequests(page);
    const [r] = await startAndGet(page, { apiKey: svc.keys.publicKey, endpoints: [await deadEndpoint(), svc.url] });
    expect(r).toMatchObject({ ok: true });
    expect(sent).toHaveLength(2); // the dead one, then the service
  });

  test('endpoints without region: a dead endpoint is an error the page sees, with no hosted fallback', async () => {
    await page.goto(`${site.origin}/dead-no-region`);
    const urls: string[] = [];
    page.on('request', (req) => req.method() === 'POST' && urls.push(req.url()));
    const dead = await deadEndpoint();
    const [r] = await startAndGet(page, { apiKey: svc.keys.publicKey, endpoints: dead });
    expect(r).toEqual({ ok: false, isAgentError: true, code: 'network_connection', message: 'Network connection error', event_id: null });
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url.startsWith(dead), url).toBe(true);
  });

  test('withoutDefault with only a dead endpoint fails with network_connection', async () => {
    await page.goto(`${site.origin}/dead`);
    const [r] = await startAndGet(page, { apiKey: svc.keys.publicKey, region: 'us', endpoints: await deadEndpoint() }, {}, { withoutDefault: true });
    expect(r).toEqual({ ok: false, isAgentError: true, code: 'network_connection', message: 'Network connection error', event_id: null });
  });

  test("the service's own errors reach the page with their code", async () => {
    await page.goto(`${site.origin}/unknown-key`);
    const [r] = await startAndGet(page, { apiKey: 'pk_not_a_key', endpoints: svc.url }, {}, { withoutDefault: true });
    expect(r).toMatchObject({ ok: false, isAgentError: true, code: 'public_api_key_not_found' });
  });

  test('start() throws synchronously for bad options, in the page too', async () => {
    await page.goto(`${site.origin}/bad`);
    await page.waitForFunction(() => (window as unknown as { loaded?: boolean }).loaded === true);
    const codes = await page.evaluate(() => {
      const T = (window as unknown as { Tessera: { start(o: unknown): unknown } }).Tessera;
      return [
        {},
        { apiKey: 1 },
        { apiKey: 'k' },
        { apiKey: 'k', endpoints: [] },
        { apiKey: 'k', endpoints: 'nope' },
        { apiKey: 'k', endpoints: '/t', cache: { storage: 'agent', duration: 43201 } },
      ].map(
        (o) => {
          try {
            T.start(o);
            return 'no error';
          } catch (e) {
            return (e as { code: string }).code;
          }
        },
      );
    });
    expect(codes).toEqual(['api_key_missing', 'api_key_invalid', 'endpoints_misconfigured', 'endpoints_misconfigured', 'invalid_endpoint', 'cache_misconfigured']);
  });
});
