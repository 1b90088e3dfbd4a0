/**
 * The CDN route (baked key and origin, caching, unknown keys) and the demo page, on both engines.
 * Needs the agent build in dist/agent (`npm test` builds first).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CDN_API_KEY_PLACEHOLDER, CDN_ENDPOINT_PLACEHOLDER } from '../../src/protocol/cdn.js';
import { bakeBundle, createBundleCache } from '../../src/service/cdn/agent-bundle.js';
import { createApiKey, setApiKeyStatus } from '../../src/service/store/api-keys.js';
import { identifyRequest, postIdentify } from '../helpers/identify-request.js';
import { ENGINES, startTestService, type TestService } from '../helpers/test-service.js';

describe('agent bundle baking', () => {
  it('replaces every placeholder with a value that cannot break out of a JS string', () => {
    const source = `const a="${CDN_API_KEY_PLACEHOLDER}",b='${CDN_ENDPOINT_PLACEHOLDER}',c="${CDN_ENDPOINT_PLACEHOLDER}";`;
    const baked = bakeBundle(source, { apiKey: 'KEY123', endpoint: `https://x.example/'"</script>\u2028` });
    expect(baked).not.toContain('__TESSERA_');
    // Evaluating the baked source gives back the exact values in both quote styles.
    const values = JSON.parse(runInNewContext(`${baked} JSON.stringify([a, b, c]);`) as string) as string[];
    expect(values).toEqual(['KEY123', `https://x.example/'"</script>\u2028`, `https://x.example/'"</script>\u2028`]);
    expect(baked).not.toContain('</script>');
  });

  it('reports a missing build as undefined (the route answers 503) and reads a present one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-agent-'));
    const cache = createBundleCache(dir);
    expect(await cache.get('esm', 'k', 'https://e.example/')).toBeUndefined();
    writeFileSync(join(dir, 'cdn.esm.js'), `export const key = "${CDN_API_KEY_PLACEHOLDER}";`);
    const bundle = await cache.get('esm', 'k', 'https://e.example/');
    expect(bundle?.body).toBe('export const key = "k";');
    expect(bundle?.etag).toMatch(/^"[\w-]+"$/);
  });
});

describe.each(ENGINES)('CDN route and demo page (%s)', (engine) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ engine });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('serves the ESM and IIFE agent with the key and origin baked in, cacheable', async () => {
    for (const path of [`/v4/${t.keys.publicKey}`, `/v4/${t.keys.publicKey}/iife.js`]) {
      const res = await fetch(t.url + path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(res.headers.get('cache-control')).toMatch(/public, max-age=\d+/);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      const etag = res.headers.get('etag');
      expect(etag).toBeTruthy();
      const body = await res.text();
      // V8's compile hint stays the first line (rollup.config.mjs).
      expect(body.split('\n', 1)[0]).toBe('//# allFunctionsCalledOnLoad');
      expect(body).toContain(t.keys.publicKey);
      expect(body).toContain(`${t.url}/`);
      expect(body).not.toContain(CDN_API_KEY_PLACEHOLDER);
      expect(body).not.toContain(CDN_ENDPOINT_PLACEHOLDER);
      const again = await fetch(t.url + path, { headers: { 'If-None-Match': etag! } });
      expect(again.status).toBe(304);
    }
    const iife = await (await fetch(`${t.url}/v4/${t.keys.publicKey}/iife.js`)).text();
    expect(iife).toMatch(/Tessera/);
  });

  it('bakes the configured public URL instead of the request origin, with its path (a site proxying a path of its own)', async () => {
    for (const [publicUrl, baked] of [
      ['https://id.shop.example', 'https://id.shop.example/'],
      ['https://shop.example/tessera/', 'https://shop.example/tessera/'],
    ] as const) {
      const proxied = await startTestService({ engine, config: { publicUrl } });
      try {
        const body = await (await fetch(`${proxied.url}/v4/${proxied.keys.publicKey}`)).text();
        expect(body).toContain(JSON.stringify(baked).slice(1, -1));
        expect(body).not.toContain(proxied.url);
      } finally {
        await proxied.close();
      }
    }
  });

  it('answers 404 with a JSON error for unknown, secret and disabled keys', async () => {
    const disabled = await createApiKey(t.service.ctx.store, {
      workspaceId: t.workspaceId,
      environmentId: t.environmentId,
      type: 'public',
      name: 'off',
      now: Date.now(),
    });
    await setApiKeyStatus(t.service.ctx.store, disabled.id, 'disabled', Date.now());
    for (const key of ['unknownKey123', t.keys.secretKey, disabled.token]) {
      for (const path of [`/v4/${key}`, `/v4/${key}/iife.js`]) {
        const res = await fetch(t.url + path);
        expect(res.status).toBe(404);
        expect((await res.json()).error.code).toBe('public_api_key_not_found');
      }
    }
  });

  it('serves the demo page, which loads the agent from the CDN route with the public key only', async () => {
    const res = await fetch(`${t.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    expect(html).toContain(`'${t.keys.publicKey}'`);
    expect(html).toContain("import('/v4/'");
    expect(html).not.toContain(t.keys.secretKey);
    expect(html).not.toContain(t.keys.managementKey);
  });

  it("lists a visitor's last events for the demo, newest first", async () => {
    const first = await postIdentify(t.url, identifyRequest(t.keys.publicKey));
    const second = await postIdentify(t.url, identifyRequest(t.keys.publicKey, { token: first.json.token }));
    expect(second.json.visitor_id).toBe(first.json.visitor_id);
    const res = await fetch(`${t.url}/demo/events?visitor_id=${first.json.visitor_id}`);
    expect(res.status).toBe(200);
    const { events } = await res.json();
    expect(events.map((e: { event_id: string }) => e.event_id)).toEqual([second.json.event_id, first.json.event_id]);
    expect(events[0].identification.visitor_id).toBe(first.json.visitor_id);
    const none = await (await fetch(`${t.url}/demo/events?visitor_id=nobody`)).json();
    expect(none.events).toEqual([]);
    expect((await fetch(`${t.url}/demo/events`)).status).toBe(400);
  });

  it('turns the demo off on request', async () => {
    const quiet = await startTestService({ engine, config: { demo: false } });
    try {
      expect((await fetch(`${quiet.url}/`)).status).toBe(404);
      expect((await fetch(`${quiet.url}/demo/events?visitor_id=x`)).status).toBe(404);
    } finally {
      await quiet.close();
    }
  });
});
