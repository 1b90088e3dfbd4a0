/**
 * Seed data for Server API tests: v4 events written through the service's own store (the
 * same insert ingestion uses), so every column mirrors its payload.
 */
import type { V4Event } from '../../src/events/v4-event.js';
import { findApiKeyByToken, setApiKeyRateLimit } from '../../src/service/store/api-keys.js';
import { insertEvent } from '../../src/service/store/events.js';
import type { TestService } from '../helpers/test-service.js';

export const DAY = 24 * 60 * 60 * 1000;
/** A fixed "now" for tests that inject the clock. */
export const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);

let counter = 0;

/** A plausible browser event; `overrides` replace top-level fields. */
export function makeEvent(timestamp: number, visitorId: string, overrides: Partial<V4Event> = {}): V4Event {
  counter++;
  const suffix = counter.toString(36).padStart(6, '0').slice(-6);
  return {
    event_id: `${timestamp}.${suffix}`,
    timestamp,
    environment_id: undefined,
    url: 'https://shop.example/checkout',
    ip_address: '203.0.113.7',
    user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/129.0.0.0 Safari/537.36',
    sdk: { platform: 'js', version: '0.1.0' },
    identification: {
      visitor_id: visitorId,
      confidence: { score: 0.99, version: '1' },
      visitor_found: true,
      first_seen_at: timestamp - DAY,
      last_seen_at: timestamp - 1000,
    },
    browser_details: {
      browser_name: 'Chrome',
      browser_major_version: '129',
      browser_full_version: '129.0.0.0',
      os: 'Linux',
      os_version: '',
      device: 'Other',
    },
    bot: 'not_detected',
    incognito: false,
    suspect: false,
    ...overrides,
  };
}

/** Stores events in the test service's workspace; returns them for convenience. */
export async function seed(t: TestService, events: V4Event[]): Promise<V4Event[]> {
  for (const event of events) {
    const stored: V4Event = { ...event, environment_id: event.environment_id ?? t.environmentId };
    await insertEvent(t.service.ctx.store, stored, { workspaceId: t.workspaceId, environmentId: stored.environment_id! });
    Object.assign(event, stored);
  }
  return events;
}

/** A mutable clock to inject into the service. */
export function manualClock(start = T0): { now(): number; set(ms: number): void; advance(ms: number): void } {
  let now = start;
  return {
    now: () => now,
    set: (ms) => {
      now = ms;
    },
    advance: (ms) => {
      now += ms;
    },
  };
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON, or the raw text when the body is not JSON (undefined when empty). */
  body: any;
  text: string;
}

/** One HTTP request to the service; `auth` picks the header style of the API version. */
export async function call(
  t: TestService,
  method: string,
  path: string,
  opts: { auth?: 'v4' | 'v3' | 'none'; key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  const key = opts.key ?? t.keys.secretKey;
  const headers: Record<string, string> = { ...opts.headers };
  const auth = opts.auth ?? (path.startsWith('/v4/') ? 'v4' : 'v3');
  if (auth === 'v4') headers['Authorization'] = `Bearer ${key}`;
  if (auth === 'v3') headers['Auth-API-Key'] = key;
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers['Content-Type'] ??= 'application/json';
  const response = await fetch(t.url + path, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = undefined;
  if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** Search order of the contract: newest first, ties by event id. */
export function newestFirst(a: V4Event, b: V4Event): number {
  return b.timestamp - a.timestamp || (a.event_id < b.event_id ? 1 : a.event_id > b.event_id ? -1 : 0);
}

/** Tests fire hundreds of requests a second: lift the secret key's rate limit (tested apart). */
export async function liftRateLimit(t: TestService, token = t.keys.secretKey): Promise<void> {
  const key = await findApiKeyByToken(t.service.ctx.store, token);
  await setApiKeyRateLimit(t.service.ctx.store, key!.id, 1_000_000);
}
