/**
 * The fetch-based transport shared by the Server API clients: URL and query building, auth
 * header, JSON bodies, typed errors and the optional retry on 429. Platform APIs only, so it
 * runs in Node, edge runtimes and workers.
 */
import { errorFromResponse, ServerApiError } from './errors.js';
import { resolveBaseUrl, type Region } from './regions.js';

export interface ClientOptions {
  /** Secret API key. */
  apiKey: string;
  /** Region of the workspace (default `us`); ignored when `baseUrl` is given. */
  region?: Region;
  /** Origin of a self-hosted service, e.g. `http://127.0.0.1:8080`. */
  baseUrl?: string;
  /** A custom fetch (instrumentation, proxies, tests); defaults to the global one. */
  fetch?: typeof fetch;
  /**
   * Retry requests answered 429: waits `Retry-After` seconds when the response has it (v3),
   * else `delayMs` doubled on each attempt (v4 sends no Retry-After). Off unless given.
   */
  retry?: { maxRetries?: number; delayMs?: number };
}

export type QueryValue = string | number | boolean | Date | undefined | null | readonly (string | number)[];
export type Query = Record<string, QueryValue>;

/** Marks requests of this client, the way the reference SDKs do; the service ignores it. */
const INTEGRATION_INFO = 'tessera-server/0.1.0';

export function buildQuery(query: Query): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      for (const item of value) params.append(key, String(item));
    } else if (value instanceof Date) {
      params.append(key, String(value.getTime()));
    } else {
      params.append(key, String(value));
    }
  }
  return params;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class HttpTransport {
  private readonly baseUrl: string;
  private readonly fetchFn: typeof fetch;

  constructor(
    private readonly options: ClientOptions,
    private readonly authHeaders: Record<string, string>,
    private readonly dialect: 'v4' | 'v3',
  ) {
    if (typeof options.apiKey !== 'string' || options.apiKey === '') {
      throw new TypeError('apiKey (a secret API key) is required');
    }
    this.baseUrl = resolveBaseUrl(options);
    const f = options.fetch ?? globalThis.fetch;
    if (typeof f !== 'function') throw new TypeError('no fetch available: pass the `fetch` option');
    this.fetchFn = f;
  }

  /** Sends one request; resolves to the parsed JSON body (undefined when empty). */
  async request<T>(method: string, path: string, query: Query = {}, body?: unknown): Promise<T> {
    const params = buildQuery({ ...query, ii: INTEGRATION_INFO });
    const url = `${this.baseUrl}${path}?${params.toString()}`;
    const headers: Record<string, string> = { ...this.authHeaders, Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const maxRetries = this.options.retry === undefined ? 0 : (this.options.retry.maxRetries ?? 3);
    const baseDelay = this.options.retry?.delayMs ?? 1000;

    for (let attempt = 0; ; attempt++) {
      const init: RequestInit = { method, headers };
      if (body !== undefined) init.body = JSON.stringify(body);
      const response = await this.fetchFn(url, init);
      const parsed = await readBody(response);
      if (response.ok) return parsed as T;
      const error = errorFromResponse(
        response.status,
        parsed,
        response.headers.get('retry-after'),
        this.dialect,
      );
      if (response.status !== 429 || attempt >= maxRetries) throw error;
      await sleep(error.retryAfter !== undefined ? error.retryAfter * 1000 : baseDelay * 2 ** attempt);
    }
  }
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    if (response.ok) {
      throw new ServerApiError(response.status, 'bad_response_format', 'response is not JSON', undefined, text);
    }
    return text;
  }
}
