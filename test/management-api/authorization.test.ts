/** Every Management API route against every kind of caller (table-driven), before any body validation. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { liftManagementRateLimit, mgmt } from './helpers.js';

const ROUTES: [method: string, path: string, permission: string][] = [
  ['GET', '/environments', 'environments:read'],
  ['POST', '/environments', 'environments:write'],
  ['GET', '/environments/ae_x', 'environments:read'],
  ['PATCH', '/environments/ae_x', 'environments:write'],
  ['DELETE', '/environments/ae_x', 'environments:write'],
  ['GET', '/api-keys', 'api_keys:read'],
  ['POST', '/api-keys', 'api_keys:write'],
  ['GET', '/api-keys/tok_x', 'api_keys:read'],
  ['PATCH', '/api-keys/tok_x', 'api_keys:write'],
  ['DELETE', '/api-keys/tok_x', 'api_keys:write'],
  ['GET', '/filtering-rules', 'filtering_rules:read'],
  ['POST', '/filtering-rules', 'filtering_rules:write'],
  ['POST', '/filtering-rules/test', 'filtering_rules:read'],
  ['GET', '/filtering-rules/tr_x', 'filtering_rules:read'],
  ['POST', '/filtering-rules/tr_x', 'filtering_rules:write'],
  ['DELETE', '/filtering-rules/tr_x', 'filtering_rules:write'],
  ['GET', '/workspace/settings', 'settings:read'],
  ['PATCH', '/workspace/settings', 'settings:write'],
  ['GET', '/encryption-keys', 'encryption_keys:read'],
  ['POST', '/encryption-keys', 'encryption_keys:write'],
  ['GET', '/encryption-keys/ek_x', 'encryption_keys:read'],
  ['PATCH', '/encryption-keys/ek_x', 'encryption_keys:write'],
  ['POST', '/encryption-keys/ek_x/rotate', 'encryption_keys:write'],
  ['DELETE', '/encryption-keys/ek_x', 'encryption_keys:write'],
  ['GET', '/webhooks', 'webhooks:read'],
  ['POST', '/webhooks', 'webhooks:write'],
  ['GET', '/webhooks/wh_x', 'webhooks:read'],
  ['PATCH', '/webhooks/wh_x', 'webhooks:write'],
  ['DELETE', '/webhooks/wh_x', 'webhooks:write'],
  ['POST', '/webhooks/wh_x/verification', 'webhooks:write'],
  ['GET', '/webhooks/wh_x/attempts', 'webhooks:read'],
  ['POST', '/webhooks/wh_x/deliveries/whd_x/resend', 'webhooks:write'],
];

describe('Management API authorization matrix', () => {
  let t: TestService;
  let disabledKey: string;
  const keyWithout = new Map<string, string>();
  beforeAll(async () => {
    t = await startTestService();
    await liftManagementRateLimit(t);
    const create = async (body: object) => (await mgmt(t, 'POST', '/api-keys', { body })).body.data;
    const disabled = await create({ type: 'management', name: 'Disabled', rate_limit: 100000 });
    await mgmt(t, 'PATCH', `/api-keys/${disabled.id}`, { body: { status: 'disabled' } });
    disabledKey = disabled.token;
    const all = [...new Set(ROUTES.map((r) => r[2]))];
    for (const permission of all) {
      const key = await create({ type: 'management', name: `Without ${permission}`, rate_limit: 100000, permissions: all.filter((p) => p !== permission) });
      keyWithout.set(permission, key.token);
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  const callers: [name: string, opts: (permission: string) => Parameters<typeof mgmt>[3], status: number, code: string][] = [
    ['no key', () => ({ key: null }), 401, 'invalid_api_key'],
    ['malformed header', () => ({ key: null, headers: { Authorization: 'Basic abc' } }), 401, 'invalid_api_key'],
    ['unknown key', () => ({ key: 'x'.repeat(40) }), 401, 'invalid_api_key'],
    ['public key', () => ({ key: t.keys.publicKey }), 401, 'invalid_api_key'],
    ['secret key', () => ({ key: t.keys.secretKey }), 401, 'invalid_api_key'],
    ['disabled management key', () => ({ key: disabledKey }), 401, 'invalid_api_key'],
    ['no X-API-Version', () => ({ version: null }), 400, 'api_version_required'],
    ['unknown X-API-Version', () => ({ version: '2024-01-01' }), 400, 'unsupported_api_version'],
    ['key lacking the permission', (permission) => ({ key: keyWithout.get(permission)! }), 403, 'forbidden'],
  ];

  it.each(callers)('%s is refused on every route, before the body is read', async (_name, opts, status, code) => {
    for (const [method, path, permission] of ROUTES) {
      // An unparseable body: refused by authorization first, never 400 invalid_request.
      const body = method === 'GET' || method === 'DELETE' ? undefined : '{not json';
      const res = await mgmt(t, method, path, { ...opts(permission), ...(body ? { body } : {}) });
      expect({ route: `${method} ${path}`, status: res.status, code: res.body?.error?.code }).toEqual({ route: `${method} ${path}`, status, code });
    }
  });

  it('the full key passes authorization on every route', async () => {
    for (const [method, path] of ROUTES) {
      const res = await mgmt(t, method, path, method === 'GET' || method === 'DELETE' ? {} : { body: {} });
      expect([200, 404, 422], `${method} ${path}`).toContain(res.status);
    }
  });
});
