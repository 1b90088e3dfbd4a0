/** ManagementApiClient (tessera/server) against the real service: every method and the iterators. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementApiClient, ManagementApiError, paginate } from '../../src/server/index.js';
import { liftManagementRateLimit } from '../management-api/helpers.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

describe('ManagementApiClient against the service', () => {
  let t: TestService;
  let mgmt: ManagementApiClient;
  beforeAll(async () => {
    t = await startTestService({ engine: 'postgres' });
    await liftManagementRateLimit(t);
    mgmt = new ManagementApiClient({ apiKey: t.keys.managementKey, baseUrl: t.url });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('environments', async () => {
    const env = await mgmt.createEnvironment({ name: 'Client env', description: 'made by the client' });
    expect(await mgmt.getEnvironment(env.id)).toEqual(env);
    expect((await mgmt.updateEnvironment(env.id, { name: 'Client env 2' })).name).toBe('Client env 2');
    const page = await mgmt.listEnvironments({ limit: 1 });
    expect(page.data.map((e) => e.id)).toEqual([t.environmentId]);
    expect(page.nextCursor).toEqual(expect.any(String));
    const all = [];
    for await (const e of mgmt.iterateEnvironments({ limit: 1 })) all.push(e.id);
    expect(all).toEqual([t.environmentId, env.id]);
    await mgmt.deleteEnvironment(env.id);
    await expect(mgmt.getEnvironment(env.id)).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });

  it('API keys', async () => {
    const key = await mgmt.createApiKey({ type: 'secret', name: 'Client secret' });
    expect(key.token).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(await mgmt.getApiKey(key.id)).not.toHaveProperty('token');
    const disabled = await mgmt.updateApiKey(key.id, { status: 'disabled' });
    expect(disabled.disabled_at).toEqual(expect.any(String));
    expect((await mgmt.listApiKeys({ status: 'disabled' })).data.map((k) => k.id)).toEqual([key.id]);
    const secrets = [];
    for await (const k of mgmt.iterateApiKeys({ type: 'secret', limit: 1 })) secrets.push(k.name);
    expect(secrets).toEqual(['Default secret key', 'Client secret']);
    await mgmt.deleteApiKey(key.id);
    await expect(mgmt.getApiKey(key.id)).rejects.toBeInstanceOf(ManagementApiError);
  });

  it('filtering rules, the test operation and validation errors', async () => {
    const rule = await mgmt.createFilteringRule({ name: 'Client rule', expression: "http.request.ip == '203.0.113.9'", action: 'deny', deny_with: 'Blocked' });
    expect(await mgmt.getFilteringRule(rule.id)).toEqual(rule);
    const second = await mgmt.createFilteringRule({ name: 'Client rule 2', expression: 'false', action: 'allow', placement: { position: 0 } });
    const names = [];
    for await (const r of paginate((cursor) => mgmt.listFilteringRules({ environment: t.environmentId, limit: 1, cursor }))) names.push(r.name);
    expect(names).toEqual(['Client rule 2', 'Client rule']);
    expect((await mgmt.updateFilteringRule(second.id, { placement: { after: rule.id } })).id).toBe(second.id);
    expect((await mgmt.listFilteringRules()).data.map((r) => r.id)).toEqual([rule.id, second.id]);
    expect(await mgmt.testFilteringRules({ request: { ip: '203.0.113.9' } })).toEqual({ result: 'deny', deny_with: 'Blocked', triggered_rule: rule.id });
    expect((await mgmt.testFilteringRules({ rules: [{ name: 'all', expression: 'true', action: 'allow' }], request: {} })).result).toBe('allow');
    const error = await mgmt.createFilteringRule({ name: 'Broken', expression: 'http.request.ip ==', action: 'deny' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ManagementApiError);
    expect(error).toMatchObject({ status: 422, code: 'validation_failed' });
    expect((error as ManagementApiError).violations[0]?.property).toBe('expression');
    await mgmt.deleteFilteringRule(rule.id);
    await mgmt.deleteFilteringRule(second.id);
    expect((await mgmt.listFilteringRules()).data).toEqual([]);
  });

  it('workspace settings', async () => {
    expect(await mgmt.getWorkspaceSettings()).toEqual({ visitor_deletion_enabled: false, data_retention_days: null });
    expect(await mgmt.updateWorkspaceSettings({ data_retention_days: 7 })).toEqual({ visitor_deletion_enabled: false, data_retention_days: 7 });
  });

  it('errors: 401 for a wrong key, 429 with retryAfter, and the retry option waits it out', async () => {
    await expect(new ManagementApiClient({ apiKey: 'nope', baseUrl: t.url }).getWorkspaceSettings()).rejects.toMatchObject({ status: 401, code: 'invalid_api_key' });
    const slow = await mgmt.createApiKey({ type: 'management', name: 'Slow client', rate_limit: 1, permissions: ['settings:read'] });
    const client = new ManagementApiClient({ apiKey: slow.token, baseUrl: t.url });
    const results = await Promise.allSettled([client.getWorkspaceSettings(), client.getWorkspaceSettings(), client.getWorkspaceSettings()]);
    const limited = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(limited.reason).toMatchObject({ status: 429, code: 'too_many_requests' });
    expect(limited.reason.retryAfter).toBeGreaterThanOrEqual(1);
    const patient = new ManagementApiClient({ apiKey: slow.token, baseUrl: t.url, retry: { maxRetries: 3 } });
    expect((await patient.getWorkspaceSettings()).data_retention_days).toBe(7);
  });
});
