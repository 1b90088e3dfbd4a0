/**
 * The ingestion endpoint over HTTP, on both engines: success, every refusal with the
 * contract's code, and no stored data for any refused request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LINKED_ID_LENGTH, MAX_REQUEST_BYTES, MAX_TAGS_JSON_BYTES } from '../../src/protocol/index.js';
import type { V4Event } from '../../src/events/v4-event.js';
import { createApiKey, setApiKeyStatus } from '../../src/service/store/api-keys.js';
import { countEvents, getEvent } from '../../src/service/store/events.js';
import { insertFilteringRule } from '../../src/service/store/filtering-rules.js';
import { kyselyOf } from '../../src/service/store/index.js';
import { setWorkspaceRegion } from '../../src/service/store/workspaces.js';
import { identifyRequest, postIdentify, sampleSignals } from '../helpers/identify-request.js';
import { ENGINES, startTestService, type TestService } from '../helpers/test-service.js';

describe.each(ENGINES)('ingestion (%s)', (engine) => {
  let t: TestService;
  const db = () => t.service.ctx.store;
  const now = () => Date.now();

  beforeAll(async () => {
    t = await startTestService({ engine });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Runs `fn` and asserts that it stored no event. */
  async function storesNothing(fn: () => Promise<void>): Promise<void> {
    const before = await countEvents(db());
    await fn();
    expect(await countEvents(db())).toBe(before);
  }

  function expectError(res: { status: number; json: any }, status: number, code: string): void {
    expect(res.status).toBe(status);
    expect(res.json.v).toBe(1);
    expect(res.json.error.code).toBe(code);
    expect(typeof res.json.error.message).toBe('string');
    expect(res.json.error.message.length).toBeGreaterThan(0);
  }

  it('identifies a visitor, stores the v4 event and answers with a token', async () => {
    const before = await countEvents(db());
    const first = await postIdentify(
      t.url,
      identifyRequest(t.keys.publicKey, { linked_id: 'order-17', tags: { cart: 3 }, referrer: 'https://search.example/' }),
    );
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ v: 1, visitor_found: false, sealed_result: null });
    expect(first.json.event_id).toMatch(/^\d{13}\.[A-Za-z0-9_-]{6}$/);
    expect(first.json.visitor_id).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(typeof first.json.token).toBe('string');
    expect(typeof first.json.confidence.score).toBe('number');
    expect(await countEvents(db())).toBe(before + 1);

    const event = (await getEvent(db(), t.workspaceId, first.json.event_id)) as V4Event;
    expect(event).toMatchObject({
      event_id: first.json.event_id,
      environment_id: t.environmentId,
      linked_id: 'order-17',
      tags: { cart: 3 },
      url: 'https://shop.example.com/checkout',
      client_referrer: 'https://search.example/',
      ip_address: '127.0.0.1',
      sdk: { platform: 'js', version: '4.0.0' },
      identification: { visitor_id: first.json.visitor_id, visitor_found: false, confidence: first.json.confidence },
      browser_details: { browser_name: 'Chrome', browser_major_version: '131', os: 'Windows', os_version: '10', device: 'Other' },
      os: 'Windows',
      bot: 'not_detected',
      incognito: false,
      developer_tools: false,
      tampering: false,
      virtual_machine: false,
      replayed: false,
      suspect_score: first.json.suspect_score,
    });
    expect(event.raw_device_attributes).toEqual(sampleSignals());
    expect(event.velocity?.events['5_minutes']).toBe(1);

    // The returned token brings the same visitor back, found.
    const second = await postIdentify(t.url, identifyRequest(t.keys.publicKey, { token: first.json.token, linked_id: 'order-18' }));
    expect(second.status).toBe(200);
    expect(second.json.visitor_id).toBe(first.json.visitor_id);
    expect(second.json.visitor_found).toBe(true);
    const again = (await getEvent(db(), t.workspaceId, second.json.event_id)) as V4Event;
    expect(again.identification?.first_seen_at).toBe(event.timestamp);
    expect(again.velocity?.events['5_minutes']).toBe(2);
    expect(again.velocity?.distinct_linked_id['5_minutes']).toBe(2);
  });

  it('answers with exactly the fields of the protocol, typed as it says (response schema)', async () => {
    const res = await postIdentify(t.url, identifyRequest(t.keys.publicKey));
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(
      ['confidence', 'event_id', 'sealed_result', 'suspect_score', 'token', 'v', 'visitor_found', 'visitor_id'].sort(),
    );
    expect(res.json).toMatchObject({ v: 1, sealed_result: null });
    expect(typeof res.json.visitor_found).toBe('boolean');
    expect(typeof res.json.event_id).toBe('string');
    expect(typeof res.json.visitor_id).toBe('string');
    expect(typeof res.json.token).toBe('string');
    expect(typeof res.json.suspect_score).toBe('number');
    expect(typeof res.json.confidence.score).toBe('number');
    expect(typeof res.json.confidence.version).toBe('string');
    // The event the answer names is the stored one, for the visitor it names.
    expect((await getEvent(db(), t.workspaceId, res.json.event_id))?.identification?.visitor_id).toBe(res.json.visitor_id);
  });

  it('accepts application/json too and answers CORS for any origin', async () => {
    const res = await fetch(`${t.url}/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: 'https://shop.example.com' },
      body: JSON.stringify(identifyRequest(t.keys.publicKey)),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
    expect(res.headers.get('vary')).toContain('Origin');
  });

  it('answers a CORS preflight', async () => {
    const res = await fetch(`${t.url}/`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://other.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://other.example');
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-headers')).toBe('content-type');
  });

  it('puts CORS headers on errors too, so the page can read the error', async () => {
    const res = await fetch(`${t.url}/`, { method: 'POST', headers: { 'Content-Type': 'text/plain', Origin: 'https://x.example' }, body: '{' });
    expect(res.status).toBe(400);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://x.example');
  });

  it('refuses a missing or empty public key: public_api_key_required', async () => {
    await storesNothing(async () => {
      const { api_key: _, ...withoutKey } = identifyRequest('x');
      expectError(await postIdentify(t.url, withoutKey), 403, 'public_api_key_required');
      expectError(await postIdentify(t.url, identifyRequest('')), 403, 'public_api_key_required');
    });
  });

  it('refuses unknown, secret, management and disabled keys: public_api_key_not_found', async () => {
    const disabled = await createApiKey(db(), { workspaceId: t.workspaceId, environmentId: t.environmentId, type: 'public', name: 'to disable', now: now() });
    // It works while enabled...
    expect((await postIdentify(t.url, identifyRequest(disabled.token))).status).toBe(200);
    await setApiKeyStatus(db(), disabled.id, 'disabled', now());
    await storesNothing(async () => {
      for (const key of ['no-such-key', t.keys.secretKey, t.keys.managementKey, disabled.token]) {
        expectError(await postIdentify(t.url, identifyRequest(key)), 403, 'public_api_key_not_found');
      }
    });
  });

  it("enforces the key's rate_limit with 429 too_many_requests", async () => {
    const slow = await createApiKey(db(), { workspaceId: t.workspaceId, environmentId: t.environmentId, type: 'public', name: 'slow', rateLimit: 1, now: now() });
    const before = await countEvents(db());
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await postIdentify(t.url, identifyRequest(slow.token));
      statuses.push(res.status);
      if (res.status === 429) {
        expectError(res, 429, 'too_many_requests');
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
    }
    expect(statuses[0]).toBe(200);
    expect(statuses).toContain(429);
    // Only the allowed requests were stored.
    expect(await countEvents(db())).toBe(before + statuses.filter((s) => s === 200).length);
  });

  it('refuses a workspace of another region: wrong_region', async () => {
    await setWorkspaceRegion(db(), t.workspaceId, 'eu');
    try {
      await storesNothing(async () => {
        expectError(await postIdentify(t.url, identifyRequest(t.keys.publicKey)), 403, 'wrong_region');
      });
    } finally {
      await setWorkspaceRegion(db(), t.workspaceId, 'us');
    }
    expect((await postIdentify(t.url, identifyRequest(t.keys.publicKey))).status).toBe(200);
  });

  it('applies filtering rules in order: the first enabled match decides', async () => {
    // A separate environment keeps these rules away from the other tests.
    const env = await kyselyOf(t.service.ctx.store)
      .insertInto('environments')
      .values({ id: `ae_rules${engine}`, workspace_id: t.workspaceId, name: 'rules', is_default: 0, created_at: now() })
      .returning('id')
      .executeTakeFirstOrThrow();
    const key = await createApiKey(db(), { workspaceId: t.workspaceId, environmentId: env.id, type: 'public', name: 'rules key', now: now() });
    const rule = (r: { expression: string; action: 'allow' | 'deny'; position: number; status?: 'enabled' | 'disabled'; denyWith?: string }) =>
      insertFilteringRule(db(), { environmentId: env.id, name: `rule ${r.position}`, now: now(), ...r });

    await rule({ position: 10, expression: "http.user_agent.string matches '(?i)evilbot'", action: 'deny', denyWith: 'Bots are not welcome' });
    await storesNothing(async () => {
      const denied = await postIdentify(t.url, identifyRequest(key.token), { headers: { 'User-Agent': 'Mozilla/5.0 EvilBot/2.0' } });
      expectError(denied, 403, 'request_filtered');
      expect(denied.json.error.message).toBe('Bots are not welcome');
    });
    // Other user agents pass the rule.
    expect((await postIdentify(t.url, identifyRequest(key.token))).status).toBe(200);

    // A deny for every loopback client at position 20 blocks everyone...
    await rule({ position: 20, expression: "http.request.ip in cidr('127.0.0.0/8')", action: 'deny' });
    await storesNothing(async () => {
      const denied = await postIdentify(t.url, identifyRequest(key.token));
      expectError(denied, 403, 'request_filtered');
      expect(denied.json.error.message).toBe('Forbidden');
    });
    // ...a disabled allow rule before it changes nothing...
    await rule({ position: 1, expression: 'true', action: 'allow', status: 'disabled' });
    expect((await postIdentify(t.url, identifyRequest(key.token))).status).toBe(403);
    // ...an enabled allow rule before it wins, for the origin it names only.
    await rule({ position: 2, expression: "http.request.headers['Origin'][0] == 'https://shop.example.com'", action: 'allow' });
    expect((await postIdentify(t.url, identifyRequest(key.token), { headers: { Origin: 'https://shop.example.com' } })).status).toBe(200);
    expect((await postIdentify(t.url, identifyRequest(key.token), { headers: { Origin: 'https://else.example' } })).status).toBe(403);
    // An expression that fails at run time (indexing a missing header) never matches (and does not break ingestion).
    await rule({ position: 0, expression: "http.request.headers['X-Missing'][0] == 'x'", action: 'deny' });
    expect((await postIdentify(t.url, identifyRequest(key.token), { headers: { Origin: 'https://shop.example.com' } })).status).toBe(200);
  });

  it('refuses an oversized body with 413 payload_too_large', async () => {
    await storesNothing(async () => {
      const huge = identifyRequest(t.keys.publicKey, { tags: { blob: 'x'.repeat(MAX_REQUEST_BYTES) } });
      expectError(await postIdentify(t.url, huge), 413, 'payload_too_large');
    });
  });

  it('refuses malformed JSON and wrong shapes with 400 request_cannot_be_parsed', async () => {
    const key = t.keys.publicKey;
    const bad: unknown[] = [
      null,
      [],
      'just a string',
      { ...identifyRequest(key), v: 2 },
      { ...identifyRequest(key), url: undefined },
      { ...identifyRequest(key), sdk: 'js' },
      { ...identifyRequest(key), signals: { screen: { width: 'wide' } } },
      { ...identifyRequest(key), signals: { fonts: { Arial: true } } },
      { ...identifyRequest(key), signals: { webgl: { vendor: 'v', renderer: { name: 'x' }, params: 'p', extensions: 'e' } } },
      { ...identifyRequest(key), signals: { tampering: { canvas_mismatch: false } } },
      { ...identifyRequest(key), linked_id: 'x'.repeat(MAX_LINKED_ID_LENGTH + 1) },
      { ...identifyRequest(key), tags: { big: 'y'.repeat(MAX_TAGS_JSON_BYTES) } },
    ];
    await storesNothing(async () => {
      for (const rawBody of ['{', '', 'not json', '{"v":1,']) {
        expectError(await postIdentify(t.url, null, { rawBody }), 400, 'request_cannot_be_parsed');
      }
      for (const body of bad) {
        const res = await postIdentify(t.url, body);
        expectError(res, 400, 'request_cannot_be_parsed');
      }
    });
    // The limits themselves are allowed.
    const atLimit = await postIdentify(t.url, identifyRequest(key, { linked_id: 'x'.repeat(MAX_LINKED_ID_LENGTH) }));
    expect(atLimit.status).toBe(200);
  });

  it('flags a replayed request body and detects automation', async () => {
    const first = await postIdentify(t.url, identifyRequest(t.keys.publicKey));
    const withToken = identifyRequest(t.keys.publicKey, {
      token: first.json.token,
      linked_id: 'replay-check',
      signals: sampleSignals({ automation: { webdriver: true, headless_ua: false, globals: [] } }),
    });
    const original = await postIdentify(t.url, withToken);
    const replay = await postIdentify(t.url, withToken);
    const originalEvent = (await getEvent(db(), t.workspaceId, original.json.event_id)) as V4Event;
    const replayEvent = (await getEvent(db(), t.workspaceId, replay.json.event_id)) as V4Event;
    expect(originalEvent.replayed).toBe(false);
    expect(replayEvent.replayed).toBe(true);
    expect(originalEvent.bot).toBe('bad');
    expect(originalEvent.bot_type).toBe('webdriver');
    expect(replayEvent.suspect_score).toBeGreaterThan(originalEvent.suspect_score!);
  });
});

describe.each(ENGINES)('client IP behind a proxy (%s)', (engine) => {
  it('takes the client IP from X-Forwarded-For only with trustProxy, for events and rules', async () => {
    const direct = await startTestService({ engine });
    const proxied = await startTestService({ engine, config: { trustProxy: true } });
    try {
      const headers = { 'X-Forwarded-For': '203.0.113.5, 10.0.0.1' };
      const a = await postIdentify(direct.url, identifyRequest(direct.keys.publicKey), { headers });
      const b = await postIdentify(proxied.url, identifyRequest(proxied.keys.publicKey), { headers });
      expect((await getEvent(direct.service.ctx.store, direct.workspaceId, a.json.event_id))?.ip_address).toBe('127.0.0.1');
      expect((await getEvent(proxied.service.ctx.store, proxied.workspaceId, b.json.event_id))?.ip_address).toBe('203.0.113.5');

      await insertFilteringRule(proxied.service.ctx.store, {
        environmentId: proxied.environmentId,
        name: 'documentation network',
        expression: "http.request.ip in cidr('203.0.113.0/24')",
        action: 'deny',
        now: Date.now(),
      });
      const denied = await postIdentify(proxied.url, identifyRequest(proxied.keys.publicKey), { headers });
      expect(denied.status).toBe(403);
      const other = await postIdentify(proxied.url, identifyRequest(proxied.keys.publicKey), { headers: { 'X-Forwarded-For': '198.51.100.7' } });
      expect(other.status).toBe(200);
    } finally {
      await direct.close();
      await proxied.close();
    }
  });
});

