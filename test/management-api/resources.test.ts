/** Every Management API operation over HTTP, on SQLite and PostgreSQL. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identifyRequest, postIdentify } from '../helpers/identify-request.js';
import { ENGINES, startTestService, type TestService } from '../helpers/test-service.js';
import { liftManagementRateLimit, mgmt } from './helpers.js';

describe.each(ENGINES)('Management API (%s)', (engine) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ engine });
    await liftManagementRateLimit(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('environments: create, list, get, update, delete; the default and used ones are refused with 409', async () => {
    const created = await mgmt(t, 'POST', '/environments', { body: { name: 'Staging', description: 'pre-production' } });
    expect(created.status).toBe(201);
    const env = created.body.data;
    expect(env).toMatchObject({ name: 'Staging', description: 'pre-production', default: false, updated_at: null });
    expect(env.id).toMatch(/^ae_/);

    const list = await mgmt(t, 'GET', '/environments');
    expect(list.status).toBe(200);
    expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([t.environmentId, env.id]);
    expect(list.body.data[0].default).toBe(true);
    expect(list.body.metadata).toEqual({ pagination: { next_cursor: null, prev_cursor: null } });

    expect((await mgmt(t, 'GET', `/environments/${env.id}`)).body.data).toEqual(env);
    const updated = await mgmt(t, 'PATCH', `/environments/${env.id}`, { body: { name: 'Stage' } });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ name: 'Stage', description: 'pre-production' });
    expect(updated.body.data.updated_at).toEqual(expect.any(String));

    const defaultDelete = await mgmt(t, 'DELETE', `/environments/${t.environmentId}`);
    expect(defaultDelete.status).toBe(409);
    expect(defaultDelete.body.error.code).toBe('conflict');

    const key = await mgmt(t, 'POST', '/api-keys', { body: { type: 'public', name: 'stage key', environment: env.id } });
    const rule = await mgmt(t, 'POST', '/filtering-rules', { body: { name: 'stage rule', environment: env.id, expression: 'true', action: 'allow' } });
    const blocked = await mgmt(t, 'DELETE', `/environments/${env.id}`);
    expect(blocked.status).toBe(409);
    expect(blocked.body.error.message).toMatch(/1 API key and 1 filtering rule/);
    await mgmt(t, 'DELETE', `/api-keys/${key.body.data.id}`);
    await mgmt(t, 'DELETE', `/filtering-rules/${rule.body.data.id}`);

    const deleted = await mgmt(t, 'DELETE', `/environments/${env.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toBeUndefined();
    expect((await mgmt(t, 'GET', `/environments/${env.id}`)).status).toBe(404);
  });

  it('environments: 422 with violations, 400 for malformed JSON and unknown query values', async () => {
    const bad = await mgmt(t, 'POST', '/environments', { body: { name: 'x', description: 5, extra: true } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe('validation_failed');
    expect(bad.body.error.violations.map((v: { property: string }) => v.property).sort()).toEqual(['description', 'extra', 'name']);
    const malformed = await mgmt(t, 'POST', '/environments', { body: '{"name":' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('invalid_request');
    const notObject = await mgmt(t, 'POST', '/environments', { body: [1] });
    expect(notObject.status).toBe(400);
    const query = await mgmt(t, 'GET', '/api-keys?type=golden');
    expect(query.status).toBe(400);
    expect(query.body.error).toMatchObject({ code: 'invalid_request', violations: [{ property: 'type' }] });
  });

  it('API keys: create (token once), list with filters, get, update status and fields, delete', async () => {
    const created = await mgmt(t, 'POST', '/api-keys', { body: { type: 'secret', name: 'Backend', description: 'orders service', rate_limit: 50 } });
    expect(created.status).toBe(201);
    const key = created.body.data;
    expect(key).toMatchObject({ type: 'secret', name: 'Backend', status: 'enabled', environment: null, rate_limit: 50, disabled_at: null });
    expect(key.token).toMatch(/^[A-Za-z0-9]{32}$/);

    const pub = (await mgmt(t, 'POST', '/api-keys', { body: { type: 'public', name: 'Site' } })).body.data;
    expect(pub.environment).toBe(t.environmentId);

    const got = await mgmt(t, 'GET', `/api-keys/${key.id}`);
    expect(got.body.data.token).toBeUndefined();
    expect(got.body.data.id).toBe(key.id);

    const secrets = await mgmt(t, 'GET', '/api-keys?type=secret&limit=100');
    expect(secrets.body.data.map((k: { name: string }) => k.name)).toEqual(['Default secret key', 'Backend']);
    expect(secrets.body.data.every((k: { token?: string }) => k.token === undefined)).toBe(true);
    const inEnv = await mgmt(t, 'GET', `/api-keys?environment=${t.environmentId}`);
    expect(inEnv.body.data.every((k: { type: string }) => k.type === 'public')).toBe(true);

    // The new secret key works on the Server API until disabled; disabled_at set, then cleared.
    const serverApi = (token: string) => fetch(`${t.url}/v4/events`, { headers: { Authorization: `Bearer ${token}` } });
    expect((await serverApi(key.token)).status).toBe(200);
    const disabled = await mgmt(t, 'PATCH', `/api-keys/${key.id}`, { body: { status: 'disabled', name: 'Backend (old)' } });
    expect(disabled.body.data).toMatchObject({ status: 'disabled', name: 'Backend (old)' });
    expect(disabled.body.data.disabled_at).toEqual(expect.any(String));
    expect((await serverApi(key.token)).status).toBe(403);
    expect((await mgmt(t, 'GET', '/api-keys?status=disabled')).body.data.map((k: { id: string }) => k.id)).toEqual([key.id]);
    const enabled = await mgmt(t, 'PATCH', `/api-keys/${key.id}`, { body: { status: 'enabled' } });
    expect(enabled.body.data.disabled_at).toBeNull();
    expect((await serverApi(key.token)).status).toBe(200);

    expect((await mgmt(t, 'PATCH', `/api-keys/${key.id}`, { body: { rate_limit: 0 } })).status).toBe(422);
    expect((await mgmt(t, 'DELETE', `/api-keys/${key.id}`)).status).toBe(200);
    expect((await serverApi(key.token)).status).toBe(403);
    expect((await mgmt(t, 'GET', `/api-keys/${key.id}`)).status).toBe(404);
    expect((await mgmt(t, 'POST', '/api-keys', { body: { type: 'public', name: 'x', environment: 'ae_nope' } })).status).toBe(422);
    expect((await mgmt(t, 'POST', '/api-keys', { body: { type: 'public', name: 'Somewhere', environment: 'ae_nope' } })).status).toBe(404);
  });

  it('management keys: permissions are enforced, and only granted by a key holding them', async () => {
    const reader = (await mgmt(t, 'POST', '/api-keys', { body: { type: 'management', name: 'Reader', permissions: ['api_keys:read', 'api_keys:write'] } })).body.data;
    expect(reader.permissions).toEqual(['api_keys:read', 'api_keys:write']);
    expect((await mgmt(t, 'GET', '/api-keys', { key: reader.token })).status).toBe(200);
    const denied = await mgmt(t, 'GET', '/environments', { key: reader.token });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('forbidden');
    // It can create keys, but not a management key with more than it holds.
    const escalate = await mgmt(t, 'POST', '/api-keys', { key: reader.token, body: { type: 'management', name: 'All of it' } });
    expect(escalate.status).toBe(403);
    const narrower = await mgmt(t, 'POST', '/api-keys', { key: reader.token, body: { type: 'management', name: 'Narrow', permissions: ['api_keys:read'] } });
    expect(narrower.status).toBe(201);
    const unknown = await mgmt(t, 'POST', '/api-keys', { body: { type: 'management', name: 'Odd', permissions: ['root'] } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.violations[0].property).toBe('permissions');
  });

  it('filtering rules: create with validation, list in order, placement, update, test, delete', async () => {
    const env = (await mgmt(t, 'POST', '/environments', { body: { name: 'Rules env' } })).body.data.id;
    const create = (body: object) => mgmt(t, 'POST', '/filtering-rules', { body: { environment: env, action: 'deny', ...body } });
    const bad = await create({ name: 'broken', expression: 'http.request.ip == (' });
    expect(bad.status).toBe(422);
    expect(bad.body.error.violations[0].property).toBe('expression');
    expect(bad.body.error.violations[0].message).toMatch(/\(1:\d+\)$/);

    const a = (await create({ name: 'rule a', expression: "http.user_agent.string contains 'EvilBot'", deny_with: 'No bots' })).body.data;
    const b = (await create({ name: 'rule b', expression: "http.request.ip == '10.0.0.1'" })).body.data;
    const c = (await create({ name: 'rule c', expression: 'false', placement: { position: 0 } })).body.data;
    expect(a).toMatchObject({ environment: env, action: 'deny', status: 'enabled', deny_with: 'No bots', updated_at: null });
    const order = async () => (await mgmt(t, 'GET', `/filtering-rules?environment=${env}`)).body.data.map((r: { name: string }) => r.name);
    expect(await order()).toEqual(['rule c', 'rule a', 'rule b']);

    const moved = await mgmt(t, 'POST', `/filtering-rules/${c.id}`, { body: { id: c.id, placement: { after: b.id }, status: 'disabled' } });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject({ status: 'disabled', name: 'rule c', expression: 'false' });
    expect(moved.body.data.updated_at).toEqual(expect.any(String));
    expect(await order()).toEqual(['rule a', 'rule b', 'rule c']);
    await mgmt(t, 'POST', `/filtering-rules/${b.id}`, { body: { id: b.id, placement: { before: a.id } } });
    expect(await order()).toEqual(['rule b', 'rule a', 'rule c']);
    expect((await mgmt(t, 'GET', `/filtering-rules?environment=${env}&status=disabled`)).body.data.map((r: { id: string }) => r.id)).toEqual([c.id]);
    expect((await mgmt(t, 'GET', `/filtering-rules?name=rule%20a`)).body.data.map((r: { id: string }) => r.id)).toEqual([a.id]);

    const wrongId = await mgmt(t, 'POST', `/filtering-rules/${a.id}`, { body: { id: b.id, name: 'renamed' } });
    expect(wrongId.status).toBe(422);
    expect(wrongId.body.error.violations[0].property).toBe('id');
    const badAnchor = await mgmt(t, 'POST', `/filtering-rules/${a.id}`, { body: { id: a.id, placement: { after: 'tr_nope' } } });
    expect(badAnchor.status).toBe(422);

    const test = (body: object) => mgmt(t, 'POST', '/filtering-rules/test', { body });
    const denied = await test({ environment: env, request: { user_agent: 'Mozilla/5.0 EvilBot/2.0', ip: '192.0.2.1' } });
    expect(denied.body.data).toEqual({ result: 'deny', deny_with: 'No bots', triggered_rule: a.id });
    const allowed = await test({ environment: env, request: { headers: { 'User-Agent': 'Mozilla/5.0' }, ip: '192.0.2.1' } });
    expect(allowed.body.data).toEqual({ result: 'allow', deny_with: null, triggered_rule: null });
    const inline = await test({ rules: [{ name: 'sdk', expression: "sdk.platform.name == 'ios'", action: 'deny' }], request: { sdk_platform: 'ios', sdk_version: '1.0.0' } });
    expect(inline.body.data).toEqual({ result: 'deny', deny_with: 'Forbidden', triggered_rule: 'rules[0]' });
    const invalidInline = await test({ rules: [{ name: 'bad', expression: '(', action: 'deny' }], request: {} });
    expect(invalidInline.status).toBe(422);
    expect(invalidInline.body.error.violations[0].property).toBe('rules[0].expression');

    expect((await mgmt(t, 'DELETE', `/filtering-rules/${b.id}`)).status).toBe(200);
    expect(await order()).toEqual(['rule a', 'rule c']);
    expect((await mgmt(t, 'GET', `/filtering-rules/${b.id}`)).status).toBe(404);
    // Positions stay without gaps: placing at 1 lands between the two.
    const d = (await create({ name: 'rule d', expression: 'false', placement: { position: 1 } })).body.data;
    expect(await order()).toEqual(['rule a', 'rule d', 'rule c']);
    expect(d.id).toMatch(/^tr_/);
  });

  it('a rule created through the API denies the next identification; disabling it lets it through', async () => {
    const rule = (
      await mgmt(t, 'POST', '/filtering-rules', {
        body: { name: 'no curl', expression: "http.user_agent.string contains 'curl'", action: 'deny', deny_with: 'Go away, curl' },
      })
    ).body.data;
    const headers = { 'User-Agent': 'curl/8.0' };
    const denied = await postIdentify(t.url, identifyRequest(t.keys.publicKey), { headers });
    expect(denied.status).toBe(403);
    expect(denied.json.error).toMatchObject({ code: 'request_filtered', message: 'Go away, curl' });
    await mgmt(t, 'POST', `/filtering-rules/${rule.id}`, { body: { id: rule.id, status: 'disabled' } });
    expect((await postIdentify(t.url, identifyRequest(t.keys.publicKey), { headers })).status).toBe(200);
    await mgmt(t, 'DELETE', `/filtering-rules/${rule.id}`);
  });

  it('workspace settings: read and change; retention override is used by the retention job', async () => {
    const initial = await mgmt(t, 'GET', '/workspace/settings');
    expect(initial.body.data).toEqual({ visitor_deletion_enabled: false, data_retention_days: null });
    const changed = await mgmt(t, 'PATCH', '/workspace/settings', { body: { visitor_deletion_enabled: true, data_retention_days: 30 } });
    expect(changed.body.data).toEqual({ visitor_deletion_enabled: true, data_retention_days: 30 });
    expect((await mgmt(t, 'PATCH', '/workspace/settings', { body: { data_retention_days: 0 } })).status).toBe(422);
    expect((await mgmt(t, 'PATCH', '/workspace/settings', { body: { data_retention_days: null } })).body.data.data_retention_days).toBeNull();
  });

  it('pagination: limit, next and prev cursors, limit 0 and 101, bad cursor', async () => {
    for (let i = 0; i < 4; i++) await mgmt(t, 'POST', '/api-keys', { body: { type: 'proxy', name: `proxy ${i}` } });
    const page1 = await mgmt(t, 'GET', '/api-keys?type=proxy&limit=3');
    expect(page1.body.data.map((k: { name: string }) => k.name)).toEqual(['proxy 0', 'proxy 1', 'proxy 2']);
    expect(page1.body.metadata.pagination.prev_cursor).toBeNull();
    const next = page1.body.metadata.pagination.next_cursor;
    const page2 = await mgmt(t, 'GET', `/api-keys?type=proxy&limit=3&cursor=${next}`);
    expect(page2.body.data.map((k: { name: string }) => k.name)).toEqual(['proxy 3']);
    expect(page2.body.metadata.pagination.next_cursor).toBeNull();
    const back = await mgmt(t, 'GET', `/api-keys?type=proxy&limit=3&cursor=${page2.body.metadata.pagination.prev_cursor}`);
    expect(back.body.data).toEqual(page1.body.data);
    const zero = await mgmt(t, 'GET', '/api-keys?limit=0');
    expect(zero.status).toBe(200);
    expect(zero.body).toEqual({ data: [], metadata: { pagination: { next_cursor: null, prev_cursor: null } } });
    expect((await mgmt(t, 'GET', '/api-keys?limit=101')).status).toBe(200);
    expect((await mgmt(t, 'GET', '/api-keys?limit=102')).status).toBe(400);
    expect((await mgmt(t, 'GET', '/api-keys?limit=-1')).status).toBe(400);
    const bad = await mgmt(t, 'GET', '/api-keys?cursor=not-a-cursor');
    expect(bad.status).toBe(400);
    expect(bad.body.error.violations[0].property).toBe('cursor');
    expect((await mgmt(t, 'GET', '/environments?limit=1')).body.metadata.pagination.next_cursor).toEqual(expect.any(String));
  });

  it('429 with Retry-After past the key rate limit', async () => {
    const slow = (await mgmt(t, 'POST', '/api-keys', { body: { type: 'management', name: 'Slow', rate_limit: 1, permissions: ['settings:read'] } })).body.data;
    const answers = await Promise.all(Array.from({ length: 4 }, () => mgmt(t, 'GET', '/workspace/settings', { key: slow.token })));
    const limited = answers.find((a) => a.status === 429)!;
    expect(limited.body.error.code).toBe('too_many_requests');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it("another workspace's ids are 404, unknown management URLs answer the contract's error", async () => {
    const other = await startTestService({ engine });
    try {
      await liftManagementRateLimit(other);
      const theirEnv = (await mgmt(other, 'POST', '/environments', { body: { name: 'Theirs' } })).body.data.id;
      const theirKey = (await mgmt(other, 'POST', '/api-keys', { body: { type: 'secret', name: 'Theirs' } })).body.data.id;
      const theirRule = (await mgmt(other, 'POST', '/filtering-rules', { body: { name: 'Theirs', expression: 'true', action: 'allow' } })).body.data.id;
      for (const path of [`/environments/${theirEnv}`, `/api-keys/${theirKey}`, `/filtering-rules/${theirRule}`]) {
        expect((await mgmt(t, 'GET', path)).status).toBe(404);
        expect((await mgmt(t, 'DELETE', path)).status).toBe(404);
      }
      expect((await mgmt(t, 'POST', '/filtering-rules', { body: { name: 'Mine', environment: theirEnv, expression: 'true', action: 'allow' } })).status).toBe(404);
    } finally {
      await other.close();
    }
    const unknown = await mgmt(t, 'GET', '/environments/x/y');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
  });
});
