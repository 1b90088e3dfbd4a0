/**
 * ManagementApiClient against a tiny local stand-in of the service: it records each request
 * and answers canned JSON in the wire format of docs/management-api.md, to check headers,
 * paths, encoding, bodies, error mapping and pagination. management-client-integration.test.ts
 * runs the client against the real service.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ManagementApiClient,
  ManagementApiError,
  paginate,
  ServerApiError,
  type ApiKey,
  type Environment,
  type FilteringRule,
} from '../../src/server/index.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}
interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** JSON-encoded unless a string; no body when undefined. */
  body?: unknown;
}

const T = '2026-11-25T08:00:00.000Z';
const env: Environment = { id: 'ae_1', name: 'Production', description: null, default: false, created_at: T, updated_at: null };
const key: ApiKey = {
  id: 'tok_1', name: 'Backend', description: null, type: 'secret', status: 'enabled',
  environment: null, rate_limit: 10, created_at: T, disabled_at: null,
};
const rule: FilteringRule = {
  id: 'tr_1', name: 'No curl', environment: 'ae_1', expression: 'user_agent contains "curl"',
  action: 'deny', status: 'enabled', deny_with: 'Forbidden', created_at: T, updated_at: null,
};
const settings = { visitor_deletion_enabled: true, data_retention_days: 30 };
const list = <T>(data: T[], next: string | null = null, prev: string | null = null) => ({
  data,
  metadata: { pagination: { next_cursor: next, prev_cursor: prev } },
});

let server: Server;
let baseUrl: string;
let client: ManagementApiClient;
const seen: Seen[] = [];
let reply: (req: Seen) => Reply = () => ({ body: { data: {} } });

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      const request: Seen = { method: req.method!, url: req.url!, headers: req.headers, body: text === '' ? undefined : JSON.parse(text) };
      seen.push(request);
      const { status = 200, headers = {}, body } = reply(request);
      res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
      res.end(body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = new ManagementApiClient({ apiKey: 'mk_test', baseUrl });
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  seen.length = 0;
  reply = () => ({ body: { data: {} } });
});

async function rejection(promise: Promise<unknown>): Promise<ManagementApiError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ManagementApiError);
    return err as ManagementApiError;
  }
  throw new Error('expected the call to fail');
}

describe('ManagementApiClient requests', () => {
  type Case = { call: (c: ManagementApiClient) => Promise<unknown>; method: string; url: string; body?: unknown; status?: number; answer?: unknown; result?: unknown };
  const page = { data: [env], nextCursor: 'n1', prevCursor: null };
  const cases: Record<string, Case> = {
    listEnvironments: { call: (c) => c.listEnvironments({ limit: 1 }), method: 'GET', url: '/environments?limit=1', answer: list([env], 'n1'), result: page },
    createEnvironment: { call: (c) => c.createEnvironment({ name: 'Production' }), method: 'POST', url: '/environments', body: { name: 'Production' }, status: 201, answer: { data: env }, result: env },
    getEnvironment: { call: (c) => c.getEnvironment('ae_1'), method: 'GET', url: '/environments/ae_1', answer: { data: env }, result: env },
    updateEnvironment: { call: (c) => c.updateEnvironment('ae_1', { description: 'Live' }), method: 'PATCH', url: '/environments/ae_1', body: { description: 'Live' }, answer: { data: env }, result: env },
    deleteEnvironment: { call: (c) => c.deleteEnvironment('ae_1'), method: 'DELETE', url: '/environments/ae_1' },
    listApiKeys: {
      call: (c) => c.listApiKeys({ type: 'secret', status: 'enabled', environment: 'ae_1', limit: 5, cursor: 'c' }),
      method: 'GET', url: '/api-keys?type=secret&status=enabled&environment=ae_1&limit=5&cursor=c',
      answer: list([key], null, 'p0'), result: { data: [key], nextCursor: null, prevCursor: 'p0' },
    },
    createApiKey: {
      call: (c) => c.createApiKey({ type: 'management', name: 'CI', permissions: ['api_keys:read'], rate_limit: 5 }),
      method: 'POST', url: '/api-keys', body: { type: 'management', name: 'CI', permissions: ['api_keys:read'], rate_limit: 5 },
      status: 201, answer: { data: { ...key, token: 'tok_secret' } }, result: { ...key, token: 'tok_secret' },
    },
    getApiKey: { call: (c) => c.getApiKey('tok_1'), method: 'GET', url: '/api-keys/tok_1', answer: { data: key }, result: key },
    updateApiKey: { call: (c) => c.updateApiKey('tok_1', { status: 'disabled' }), method: 'PATCH', url: '/api-keys/tok_1', body: { status: 'disabled' }, answer: { data: key }, result: key },
    deleteApiKey: { call: (c) => c.deleteApiKey('tok_1'), method: 'DELETE', url: '/api-keys/tok_1' },
    listFilteringRules: {
      call: (c) => c.listFilteringRules({ environment: 'ae_1', status: 'enabled', name: 'No curl' }),
      method: 'GET', url: '/filtering-rules?environment=ae_1&status=enabled&name=No+curl',
      answer: list([rule]), result: { data: [rule], nextCursor: null, prevCursor: null },
    },
    createFilteringRule: {
      call: (c) => c.createFilteringRule({ name: 'No curl', expression: rule.expression, action: 'deny', placement: { position: 0 } }),
      method: 'POST', url: '/filtering-rules', body: { name: 'No curl', expression: rule.expression, action: 'deny', placement: { position: 0 } },
      status: 201, answer: { data: rule }, result: rule,
    },
    getFilteringRule: { call: (c) => c.getFilteringRule('tr_1'), method: 'GET', url: '/filtering-rules/tr_1', answer: { data: rule }, result: rule },
    updateFilteringRule: {
      call: (c) => c.updateFilteringRule('tr_1', { status: 'disabled', placement: { after: 'tr_0' } }),
      method: 'POST', url: '/filtering-rules/tr_1', body: { status: 'disabled', placement: { after: 'tr_0' }, id: 'tr_1' },
      answer: { data: rule }, result: rule,
    },
    deleteFilteringRule: { call: (c) => c.deleteFilteringRule('tr_1'), method: 'DELETE', url: '/filtering-rules/tr_1' },
    testFilteringRules: {
      call: (c) => c.testFilteringRules({ environment: 'ae_1', request: { user_agent: 'curl/8', ip: '192.0.2.1' } }),
      method: 'POST', url: '/filtering-rules/test', body: { environment: 'ae_1', request: { user_agent: 'curl/8', ip: '192.0.2.1' } },
      answer: { data: { result: 'deny', deny_with: 'Forbidden', triggered_rule: 'tr_1' } },
      result: { result: 'deny', deny_with: 'Forbidden', triggered_rule: 'tr_1' },
    },
    getWorkspaceSettings: { call: (c) => c.getWorkspaceSettings(), method: 'GET', url: '/workspace/settings', answer: { data: settings }, result: settings },
    updateWorkspaceSettings: {
      call: (c) => c.updateWorkspaceSettings({ data_retention_days: 30 }),
      method: 'PATCH', url: '/workspace/settings', body: { data_retention_days: 30 }, answer: { data: settings }, result: settings,
    },
  };

  it.each(Object.entries(cases))('%s: method, path, body, unwrapped answer', async (_name, c) => {
    reply = () => ({ status: c.status ?? 200, body: c.answer });
    expect(await c.call(client)).toEqual(c.result);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: c.method, url: c.url, body: c.body });
  });

  it('sends the bearer key, X-API-Version (default and chosen) and JSON content type on bodies only', async () => {
    await client.getEnvironment('ae_1');
    await client.createEnvironment({ name: 'Staging' });
    const [get, post] = seen;
    expect(get!.headers).toMatchObject({ authorization: 'Bearer mk_test', 'x-api-version': '2025-11-20', accept: 'application/json' });
    expect(get!.headers['content-type']).toBeUndefined();
    expect(post!.headers).toMatchObject({ authorization: 'Bearer mk_test', 'content-type': 'application/json' });

    const other = new ManagementApiClient({ apiKey: 'mk_2', baseUrl: `${baseUrl}/`, apiVersion: '2030-01-01' });
    await other.getWorkspaceSettings();
    expect(seen[2]).toMatchObject({ url: '/workspace/settings', headers: { authorization: 'Bearer mk_2', 'x-api-version': '2030-01-01' } });
  });

  it('URL-encodes path segments; the filtering-rule update body carries the raw id', async () => {
    reply = () => ({ body: { data: rule } });
    await client.getApiKey('tok_a/b?c#d e');
    await client.updateFilteringRule('tr_../x', { name: 'n' });
    await client.deleteEnvironment('ae_%2F');
    expect(seen.map((s) => s.url)).toEqual(['/api-keys/tok_a%2Fb%3Fc%23d%20e', '/filtering-rules/tr_..%2Fx', '/environments/ae_%252F']);
    expect(seen[1]!.body).toEqual({ name: 'n', id: 'tr_../x' });
  });

  it('requires a management key and the base URL of the service', () => {
    expect(() => new ManagementApiClient({ apiKey: '', baseUrl })).toThrow(TypeError);
    expect(() => new ManagementApiClient({ apiKey: 'mk', baseUrl: '' })).toThrow(TypeError);
    expect(() => new ManagementApiClient({ apiKey: 'mk' } as never)).toThrow(/baseUrl/);
  });
});

describe('ManagementApiClient errors', () => {
  it('422: ManagementApiError (a ServerApiError) with code, message and violations', async () => {
    const violations = [{ property: 'expression', message: 'unexpected token ")" (1:14)' }];
    reply = () => ({ status: 422, body: { error: { code: 'validation_failed', message: 'invalid rule', violations } } });
    const err = await rejection(client.createFilteringRule({ name: 'Bad', expression: 'a == )', action: 'deny' }));
    expect(err).toBeInstanceOf(ServerApiError);
    expect(err).toMatchObject({ name: 'ManagementApiError', status: 422, code: 'validation_failed', message: 'invalid rule', violations, retryAfter: undefined });
  });

  it('violations are [] when absent; malformed entries are dropped', async () => {
    reply = () => ({ status: 409, body: { error: { code: 'conflict', message: 'the environment still has 2 API keys' } } });
    expect(await rejection(client.deleteEnvironment('ae_1'))).toMatchObject({ status: 409, code: 'conflict', violations: [] });
    reply = () => ({ status: 400, body: { error: { code: 'invalid_request', message: 'bad', violations: [{ property: 'limit', message: 'too big' }, { property: 1 }, 'x'] } } });
    expect((await rejection(client.listApiKeys({ limit: 500 }))).violations).toEqual([{ property: 'limit', message: 'too big' }]);
  });

  it('429 exposes retryAfter from Retry-After; with retry the client waits and succeeds', async () => {
    reply = () => ({ status: 429, headers: { 'Retry-After': '3' }, body: { error: { code: 'too_many_requests', message: 'rate limit' } } });
    expect(await rejection(client.getApiKey('tok_1'))).toMatchObject({ status: 429, code: 'too_many_requests', retryAfter: 3 });

    seen.length = 0;
    reply = () => (seen.length === 1 ? { status: 429, headers: { 'Retry-After': '0' }, body: { error: { code: 'too_many_requests', message: 'x' } } } : { body: { data: key } });
    const retrying = new ManagementApiClient({ apiKey: 'mk_test', baseUrl, retry: { maxRetries: 2 } });
    expect(await retrying.getApiKey('tok_1')).toEqual(key);
    expect(seen).toHaveLength(2);
  });

  it('bodies without a code get the code of their status; non-JSON success is bad_response_format', async () => {
    reply = () => ({ status: 401 });
    expect(await rejection(client.getWorkspaceSettings())).toMatchObject({ status: 401, code: 'invalid_api_key', message: 'HTTP 401', violations: [] });
    reply = () => ({ status: 502, body: '<html>Bad gateway</html>' });
    expect(await rejection(client.getWorkspaceSettings())).toMatchObject({ status: 502, code: 'failed' });
    reply = () => ({ status: 200, body: 'not json' });
    expect(await rejection(client.getWorkspaceSettings())).toMatchObject({ status: 200, code: 'bad_response_format' });
  });
});

describe('ManagementApiClient pagination', () => {
  const keys = Array.from({ length: 5 }, (_, i): ApiKey => ({ ...key, id: `tok_${i}` }));
  const pages: Record<string, ReturnType<typeof list<ApiKey>>> = {
    '': list(keys.slice(0, 2), 'c2'),
    c2: list(keys.slice(2, 4), 'c3', 'p2'),
    c3: list(keys.slice(4), null, 'p3'),
  };
  const answerPages = (req: Seen): Reply => ({ body: pages[new URL(req.url, baseUrl).searchParams.get('cursor') ?? ''] });

  it('iterateApiKeys yields every item across 3 pages, keeping the filters on each request', async () => {
    reply = answerPages;
    const ids: string[] = [];
    for await (const k of client.iterateApiKeys({ type: 'secret', limit: 2 })) ids.push(k.id);
    expect(ids).toEqual(keys.map((k) => k.id));
    expect(seen.map((s) => s.url)).toEqual([
      '/api-keys?type=secret&limit=2',
      '/api-keys?type=secret&limit=2&cursor=c2',
      '/api-keys?type=secret&limit=2&cursor=c3',
    ]);
  });

  it('paginate() works over any list and can start from a cursor', async () => {
    reply = answerPages;
    const ids: string[] = [];
    for await (const k of paginate((cursor) => client.listApiKeys({ cursor }), 'c2')) ids.push(k.id);
    expect(ids).toEqual(['tok_2', 'tok_3', 'tok_4']);
    expect(seen).toHaveLength(2);
  });

  it('iterateEnvironments and iterateFilteringRules stop on a null next_cursor', async () => {
    reply = (req) => ({ body: req.url.startsWith('/environments') ? list([env]) : list([rule]) });
    const all: unknown[] = [];
    for await (const e of client.iterateEnvironments()) all.push(e);
    for await (const r of client.iterateFilteringRules({ environment: 'ae_1' })) all.push(r);
    expect(all).toEqual([env, rule]);
    expect(seen.map((s) => s.url)).toEqual(['/environments', '/filtering-rules?environment=ae_1']);
  });
});
