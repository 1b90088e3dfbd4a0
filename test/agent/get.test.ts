import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { isAgentError, start, withoutDefault, type StartOptions } from '../../src/agent/index.js';
import { VERSION } from '../../src/agent/version.js';
import { MAX_URL_LENGTH } from '../../src/protocol/index.js';
import { deadEndpoint } from '../helpers/dead-endpoint.js';
import { identified, json, startStubEndpoint, type StubEndpoint } from './helpers/stub-endpoint.js';

let stub: StubEndpoint;
let other: StubEndpoint;
beforeEach(async () => {
  stub = await startStubEndpoint();
  other = await startStubEndpoint();
  document.cookie = '_vid_t=;max-age=0;path=/';
  localStorage.clear();
});
afterEach(async () => {
  await stub.close();
  await other.close();
  vi.restoreAllMocks();
});

const agent = (o: Partial<StartOptions> = {}) => start({ apiKey: 'pk_test', endpoints: withoutDefault(stub.url), ...o });

async function rejection(p: Promise<unknown>) {
  const e = await p.then(
    () => {
      throw new Error('resolved');
    },
    (e: unknown) => e,
  );
  expect(isAgentError(e)).toBe(true);
  return e as { code: string; message: string; event_id: string | null };
}

describe('the request', () => {
  test('is the protocol JSON, with ci=js/<version>, signals and the page URL', async () => {
    const r = await agent({ integrationInfo: ['wrapper/1.0'] }).get({ linkedId: 'order-7', tag: { a: 1 } });
    expect(r).toEqual({
      event_id: expect.stringMatching(/^evt-/),
      visitor_id: 'visitor-1',
      confidence: { score: 0.99, version: 'test' },
      visitor_found: true,
      sealed_result: null,
    });
    expect('cache_hit' in r).toBe(false);
    expect(stub.queries).toEqual([`?ci=js/${VERSION}`]);
    const body = stub.requests[0]!;
    expect(body).toMatchObject({
      v: 1,
      api_key: 'pk_test',
      url: location.href,
      linked_id: 'order-7',
      tags: { a: 1 },
      sdk: { platform: 'js', version: VERSION, integrations: [{ name: 'wrapper', version: '1.0' }] },
    });
    expect(body.signals.user_agent).toBe(navigator.userAgent);
    expect(body.signals.languages).toEqual([...navigator.languages]);
    expect(body.token).toBeUndefined();
  });

  test('tags wins over tag; tag is used alone; primitives are allowed', async () => {
    const a = agent();
    await a.get({ tag: { t: 1 }, tags: { winner: true } });
    await a.get({ tag: 'plain' });
    await a.get({ tags: 0 });
    expect(stub.requests.map((r) => r.tags)).toEqual([{ winner: true }, 'plain', 0]);
  });

  test('a page URL longer than the protocol allows is cut to MAX_URL_LENGTH', async () => {
    const happyDOM = (window as unknown as { happyDOM: { setURL(u: string): void } }).happyDOM;
    happyDOM.setURL('http://localhost:3000/search?q=' + 'x'.repeat(MAX_URL_LENGTH));
    try {
      await agent().get();
    } finally {
      happyDOM.setURL('http://localhost:3000/');
    }
    expect(stub.requests[0]!.url).toBe(('http://localhost:3000/search?q=' + 'x'.repeat(MAX_URL_LENGTH)).slice(0, MAX_URL_LENGTH));
  });

  test('without cache every get() is a new event', async () => {
    const a = agent();
    const [x, y] = [await a.get(), await a.get()];
    expect(x.event_id).not.toBe(y.event_id);
    expect(stub.requests).toHaveLength(2);
  });

  test('the token from the answer is persisted and sent back next time', async () => {
    stub.reply = identified({ token: 'tok-A' });
    await agent().get();
    stub.reply = identified({ token: 'tok-B' });
    await agent().get();
    expect(stub.requests[1]!.token).toBe('tok-A');
  });

  test('sealed_result is an object with base64/byteArray/blob/toString/toJSON', async () => {
    const bytes = [0x9e, 0x85, 0xdc, 0xed, 1, 2, 250];
    const b64 = btoa(String.fromCharCode(...bytes));
    stub.reply = identified({ sealed_result: b64, suspect_score: 3 });
    const r = await agent().get();
    expect(r.suspect_score).toBe(3);
    const s = r.sealed_result!;
    expect(s.base64()).toBe(b64);
    expect(String(s)).toBe(b64);
    expect([...s.byteArray()]).toEqual(bytes);
    expect([...new Uint8Array(await s.blob().arrayBuffer())]).toEqual(bytes);
    expect(JSON.parse(JSON.stringify(r)).sealed_result).toBe(b64);
  });
});

describe('get() option rules, checked before any request', () => {
  test.each([
    ['linkedId over 256 characters', { linkedId: 'x'.repeat(257) }, 'linked_id_invalid'],
    ['non-string linkedId', { linkedId: 5 }, 'linked_id_invalid'],
    ['a top-level array in tags', { tags: [1, 2] }, 'tags_invalid'],
    ['a top-level array in tag', { tag: ['a'] }, 'tags_invalid'],
    ['tags over 16 KB of JSON', { tags: { s: 'x'.repeat(16 * 1024) } }, 'tags_invalid'],
    ['multi-byte tags over 16 KB of UTF-8', { tags: { s: '\u00e9'.repeat(8190) } }, 'tags_invalid'],
    ['tags that are not JSON', { tags: { n: 1n } }, 'tags_invalid'],
    ['a function as tags', { tags: () => 1 }, 'tags_invalid'],
  ])('%s', async (_, options, code) => {
    const e = await rejection(agent().get(options as never));
    expect(e.code).toBe(code);
    expect(e.message.length).toBeGreaterThan(10);
    expect(stub.requests).toHaveLength(0);
  });

  test('get(null) is get()', async () => {
    expect((await agent().get(null as never)).visitor_id).toBe('visitor-1');
  });

  test('the limits themselves are accepted', async () => {
    const tags = { s: 'x'.repeat(16 * 1024 - 8) }; // {"s":"…"} is exactly 16384 bytes
    expect(JSON.stringify(tags).length).toBe(16 * 1024);
    await agent().get({ linkedId: 'x'.repeat(256), tags });
    expect(stub.requests[0]!.linked_id).toHaveLength(256);
  });
});

describe('endpoints and errors', () => {
  test('a dead endpoint is skipped for the next one', async () => {
    const r = await agent({ endpoints: withoutDefault([await deadEndpoint(), stub.url]) }).get();
    expect(r.visitor_id).toBe('visitor-1');
    expect(stub.requests).toHaveLength(1);
  });

  test('a 5xx moves on to the next endpoint', async () => {
    other.reply = (_, res) => json(res, 503, { v: 1, error: { code: 'failed', message: 'down' } });
    await agent({ endpoints: withoutDefault([other.url, stub.url]) }).get();
    expect([other.requests.length, stub.requests.length]).toEqual([1, 1]);
  });

  test('a 4xx is final: its code, message and event_id reach the page, no other endpoint is tried', async () => {
    other.reply = (_, res) =>
      json(res, 403, { v: 1, error: { code: 'public_api_key_not_found', message: 'Unknown key' }, event_id: 'evt-denied' });
    const e = await rejection(agent({ endpoints: withoutDefault([other.url, stub.url]) }).get());
    expect(e).toMatchObject({ code: 'public_api_key_not_found', message: 'Unknown key', event_id: 'evt-denied' });
    expect(stub.requests).toHaveLength(0);
  });

  test('429 passes too_many_requests through', async () => {
    stub.reply = (_, res) => json(res, 429, { v: 1, error: { code: 'too_many_requests', message: 'Slow down' } });
    expect(await rejection(agent().get())).toMatchObject({ code: 'too_many_requests', event_id: null });
  });

  test('the last 5xx error is reported when every endpoint fails', async () => {
    stub.reply = (_, res) => json(res, 500, { v: 1, error: { code: 'failed', message: 'Internal error' }, event_id: 'e5' });
    expect(await rejection(agent({ endpoints: withoutDefault([await deadEndpoint(), stub.url]) }).get())).toMatchObject({
      code: 'failed',
      event_id: 'e5',
    });
  });

  test('withoutDefault with only dead endpoints -> network_connection', async () => {
    const e = await rejection(agent({ endpoints: withoutDefault([await deadEndpoint(), await deadEndpoint()]) }).get());
    expect(e).toMatchObject({ code: 'network_connection', message: 'Network connection error', event_id: null });
  });

  test.each([
    ['HTML with 200', (res: ServerResponse) => res.end('<html>hello</html>')],
    ['JSON without visitor_id', (res: ServerResponse) => json(res, 200, { v: 1, event_id: 'x' })],
    ['an HTML 404', (res: ServerResponse) => (res.writeHead(404), res.end('<h1>Not found</h1>'))],
  ])('%s -> bad_response_format', async (_, reply) => {
    stub.reply = (_b, res) => reply(res);
    expect(await rejection(agent().get())).toMatchObject({
      code: 'bad_response_format',
      message: "Can't parse the backend response. Make sure the proper endpoints are used.",
    });
  });

  test('the timeout bounds the whole call -> client_timeout', async () => {
    stub.reply = () => {}; // never answers
    expect(await rejection(agent().get({ timeout: 300 }))).toMatchObject({ code: 'client_timeout', message: 'Client timeout' });
  });

  test('a timeout beyond what timers can hold means the default, not an instant timeout', async () => {
    expect((await agent().get({ timeout: Infinity })).visitor_id).toBe('visitor-1');
    expect((await agent().get({ timeout: 2 ** 40 })).visitor_id).toBe('visitor-1');
  });

  test('a hanging endpoint gets only its share of the time, then the next one answers', async () => {
    other.reply = () => {};
    const r = await agent({ endpoints: withoutDefault([other.url, stub.url]) }).get({ timeout: 2000 });
    expect(r.visitor_id).toBe('visitor-1');
    expect(other.requests).toHaveLength(1);
  });
});

describe('signal collection', () => {
  test('concurrent get() calls share one collection; a later get() collects afresh', async () => {
    const spy = vi.spyOn(Math, 'acos'); // the math source calls it a fixed number of times per collection
    const a = agent();
    await Promise.all([a.get(), a.get(), a.get()]);
    const perCollection = spy.mock.calls.length;
    expect(perCollection).toBeGreaterThan(0);
    await a.get();
    expect(spy).toHaveBeenCalledTimes(2 * perCollection);
  });

  test('the collection start() began serves the first get()', async () => {
    const spy = vi.spyOn(Math, 'acos');
    const a = agent();
    await new Promise((r) => setTimeout(r, 50));
    const perCollection = spy.mock.calls.length;
    expect(perCollection).toBeGreaterThan(0);
    await a.get();
    expect(spy).toHaveBeenCalledTimes(perCollection);
  });
});
