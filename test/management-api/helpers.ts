/** Calls the Management API of a test service over HTTP. */
import type { TestService } from '../helpers/test-service.js';

export interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Headers;
}

export async function mgmt(
  t: TestService,
  method: string,
  path: string,
  opts: { body?: unknown; key?: string | null; version?: string | null; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  const key = opts.key === undefined ? t.keys.managementKey : opts.key;
  if (key !== null) headers.Authorization = `Bearer ${key}`;
  const version = opts.version === undefined ? '2025-11-20' : opts.version;
  if (version !== null) headers['X-API-Version'] = version;
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers,
    ...(opts.body !== undefined ? { body: typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text), headers: res.headers };
}

/** Tests send far more than the default 20 requests per second of a management key. */
export async function liftManagementRateLimit(t: TestService): Promise<void> {
  const res = await mgmt(t, 'PATCH', `/api-keys/${t.service.bootstrap.managementKeyId}`, { body: { rate_limit: 100_000 } });
  if (res.status !== 200) throw new Error(`cannot lift the rate limit: ${res.status}`);
}
