/**
 * Sealed results in real Chromium: with an encryption key enabled for the environment, the
 * agent's `get()` returns a `sealed_result` whose `base64()` a backend opens with
 * `unsealEventsResponse` to the event the Server API returns.
 */
import type { Browser, Page } from 'playwright-core';
import { expect, test } from 'vitest';
import { unsealEventsResponse } from '../../src/server/index.js';
import { createEncryptionKey } from '../../src/service/sealing/encryption-keys.js';
import type { TestService } from '../../test/helpers/test-service.js';
import { startAgent } from './helpers/agent-page.js';
import { useAgentSuite, useFreshPage } from './helpers/agent-suite.js';
import type { PageServer } from './helpers/page-server.js';

let svc: TestService;
let site: PageServer;
let browser: Browser;
let page: Page;

useAgentSuite((suite) => ({ svc, site, browser } = suite));
useFreshPage(() => browser, (_context, p) => {
  page = p;
});

test('get() returns a sealed_result that unseals to the Server API event', async () => {
  const key = await createEncryptionKey(svc.service.ctx, { workspaceId: svc.workspaceId, environmentId: svc.environmentId, name: 'e2e key' });
  await page.goto(`${site.origin}/sealed`);
  await startAgent(page, { apiKey: svc.keys.publicKey, endpoints: svc.url });

  const sealed = await page.evaluate(async () => {
    type Sealed = { base64(): string; byteArray(): Uint8Array; blob(): Blob; toString(): string };
    const agent = (window as unknown as { agent: { get(): Promise<{ event_id: string; sealed_result: Sealed | null }> } }).agent;
    const result = await agent.get();
    const s = result.sealed_result;
    if (!s) return { eventId: result.event_id, base64: null };
    return {
      eventId: result.event_id,
      base64: s.base64(),
      sameText: s.toString() === s.base64() && JSON.parse(JSON.stringify(result)).sealed_result === s.base64(),
      byteLength: s.byteArray().length,
      blobSize: s.blob().size,
    };
  });

  expect(sealed.base64).not.toBeNull();
  expect(sealed).toMatchObject({ sameText: true, blobSize: sealed.byteLength });
  const event = await unsealEventsResponse(sealed.base64!, [{ key: key.tokens.current }]);
  const res = await fetch(`${svc.url}/v4/events/${sealed.eventId}`, { headers: { Authorization: `Bearer ${svc.keys.secretKey}` } });
  expect(res.status).toBe(200);
  expect(event).toEqual(await res.json());
  expect(event.event_id).toBe(sealed.eventId);
});
