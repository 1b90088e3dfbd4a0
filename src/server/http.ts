/**
 * The fetch-based transport shared by the `./server` clients (Server API v4 and v3, Management
 * API): URL and query building, auth headers, JSON bodies, typed errors and the optional retry
 * on 429. Platform APIs only, so it runs in Node, edge runtimes and workers.
 */
import { createError, errorFromResponse, type Dialect } from './errors.js';
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

/** What a client tells the transport about its API. */
export interface TransportConfig {
  /** Sent with every request: the auth header, and the version header where the API has one. */
  headers: Record<string, string>;
  /** Error codes and shape of the API. */
  dialect: Dialect;
  /**
   * Add the `ii` integration marker to every query. The Server API ignores it; the Management
   * API gets none, as it answers unknown query values with 400.
   */
  integrationInfo: boolean;
}

export type QueryValue = string | number | boolean | Date | undefined | null | readonly (string | number)[];
export type Query = Record<string, QueryValue>;

/** Marks requests of this client, the way the reference SDKs do; the service ignores it. */
const INTEGRATION_INFO = 'tessera-id-server/0.1.0';

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
    private readonly config: TransportConfig,
  ) {
    if (typeof options.apiKey !== 'string' || options.apiKey === '') {
      throw new TypeError('apiKey is required');
    }
    this.baseUrl = resolveBaseUrl(options);
    const f = options.fetch ?? globalThis.fetch;
    if (typeof f !== 'function') throw new TypeError('no fetch available: pass the `fetch` option');
    this.fetchFn = f;
  }

  /** Sends one request; resolves to the parsed JSON body (undefined when empty). */
  async request<T>(method: string, path: string, query: Query = {}, body?: unknown): Promise<T> {
    const params = buildQuery(this.config.integrationInfo ? { ...query, ii: INTEGRATION_INFO } : query);
    const search = params.toString();
    const url = `${this.baseUrl}${path}${search === '' ? '' : `?${search}`}`;
    const headers: Record<string, string> = { ...this.config.headers, Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const maxRetries = this.options.retry === undefined ? 0 : (this.options.retry.maxRetries ?? 3);
    const baseDelay = this.options.retry?.delayMs ?? 1000;

    for (let attempt = 0; ; attempt++) {
      const init: RequestInit = { method, headers };
      if (body !== undefined) init.body = JSON.stringify(body);
      const response = await this.fetchFn(url, init);
      const parsed = await readBody(response, this.config.dialect);
      if (response.ok) return parsed as T;
      const error = errorFromResponse(
        response.status,
        parsed,
        response.headers.get('retry-after'),
        this.config.dialect,
      );
      if (response.status !== 429 || attempt >= maxRetries) throw error;
      await sleep(error.retryAfter !== undefined ? error.retryAfter * 1000 : baseDelay * 2 ** attempt);
    }
  }
}

async function readBody(response: Response, dialect: Dialect): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    if (response.ok) {
      throw createError(dialect, response.status, 'bad_response_format', 'response is not JSON', undefined, text);
    }
    return text;
  }
}
