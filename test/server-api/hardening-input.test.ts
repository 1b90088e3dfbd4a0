/**
 * Hardening of Server API input (items 4, 6, 7): strict types (no coercion of null, booleans
 * or strings), prototype keys in tags refused, update bodies sent as text/plain or without a
 * content type (as the reference SDKs send them), malformed event ids refused before lookup.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { V4Event } from '../../src/events/v4-event.js';
import { getEvent } from '../../src/service/store/events.js';
import { ENGINES, startTestService, type TestService } from '../helpers/test-service.js';
import { call, liftRateLimit, makeEvent, manualClock, seed, T0 } from './fixtures.js';

async function send(t: TestService, method: string, path: string, body: string | ArrayBuffer, contentType?: string) {
  const headers: Record<string, string> = path.startsWith('/v4/') ? { Authorization: `Bearer ${t.keys.secretKey}` } : { 'Auth-API-Key': t.keys.secretKey };
  if (contentType !== undefined) headers['Content-Type'] = contentType;
  const res = await fetch(t.url + path, { method, headers, body });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : undefined, contentType: res.headers.get('content-type') };
}

describe.each(ENGINES)('Server API hardening: input (%s)', (engine) => {
  let t: TestService;
  let event: V4Event;

  beforeAll(async () => {
    t = await startTestService({ engine, clock: manualClock().now });
    await liftRateLimit(t);
    event = (await seed(t, [makeEvent(T0 - 1000, 'visInput', { tags: { keep: 1 } })]))[0]!;
  });
  afterAll(async () => {
    await t?.close();
  });

  const stored = async () => (await getEvent(t.service.ctx.store, t.workspaceId, event.event_id))!;

  it.each([
    [{ suspect: 'yes' }, 'invalid suspect: expected a boolean'],
    [{ suspect: null }, 'invalid suspect: expected a boolean'],
    [{ suspect: 1 }, 'invalid suspect: expected a boolean'],
    [{ linked_id: null }, 'invalid linked_id'],
    [{ linked_id: 42 }, 'invalid linked_id'],
    [{ linked_id: true }, 'invalid linked_id'],
    [{ tags: null }, 'invalid tags: expected a JSON object'],
    [{ tags: ['a'] }, 'invalid tags: expected a JSON object'],
    [{ tags: 'x' }, 'invalid tags: expected a JSON object'],
  ])('PATCH body %j -> 400 naming the field', async (body, message) => {
    const res = await call(t, 'PATCH', `/v4/events/${event.event_id}`, { body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('request_cannot_be_parsed');
    expect(res.body.error.message.startsWith(message)).toBe(true);
    expect((await stored()).tags).toEqual({ keep: 1 });
  });

  it.each([
    ['limit=true', 'invalid limit'],
    ['limit=null', 'invalid limit'],
    ['limit=', 'invalid limit'],
    ['suspect=maybe', 'invalid suspect'],
    ['suspect=1', 'invalid suspect'],
    ['suspect=null', 'invalid suspect'],
    ['reverse=yes', 'invalid reverse'],
    ['vpn=', 'invalid vpn'],
    ['total_hits=true', 'invalid total_hits'],
    ['min_suspect_score=false', 'invalid min_suspect_score'],
    ['proxy=maybe', 'invalid proxy'],
  ])('search query %s -> 400 %s', async (query, message) => {
    const res = await call(t, 'GET', `/v4/events?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('request_cannot_be_parsed');
    expect(res.body.error.message.startsWith(message)).toBe(true);
  });

  it.each([
    ['__proto__ at the top', '{"tags":{"__proto__":{"polluted":true}}}'],
    ['constructor.prototype', '{"tags":{"constructor":{"prototype":{"polluted":true}}}}'],
    ['constructor', '{"tags":{"constructor":"x"}}'],
    ['prototype, nested', '{"tags":{"a":{"b":{"prototype":1}}}}'],
    ['__proto__, nested', '{"tags":{"a":[{"__proto__":{"polluted":true}}]}}'],
    ['__proto__ written with escapes', '{"tags":{"\\u005f_proto\\u005f_":{"polluted":true}}}'],
  ])('tags with %s are refused (400) and nothing is stored or polluted', async (_name, body) => {
    for (const [method, path] of [
      ['PATCH', `/v4/events/${event.event_id}`],
      ['PUT', `/events/${event.event_id}`],
    ] as const) {
      const res = await send(t, method, path, method === 'PUT' ? body.replace('"tags"', '"tag"') : body, 'application/json');
      expect(res.status, `${method} ${res.text}`).toBe(400);
      expect(res.body.error.code).toBe(method === 'PUT' ? 'RequestCannotBeParsed' : 'request_cannot_be_parsed');
    }
    expect((await stored()).tags).toEqual({ keep: 1 });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('PATCH and v3 PUT accept JSON sent as text/plain or without a content type', async () => {
    const cases = [
      ['PATCH', `/v4/events/${event.event_id}`, '{"linked_id":"plain-1"}', 'text/plain', 'plain-1'],
      ['PATCH', `/v4/events/${event.event_id}`, '{"linked_id":"none-1"}', undefined, 'none-1'],
      ['PUT', `/events/${event.event_id}`, '{"linkedId":"plain-3"}', 'text/plain;charset=UTF-8', 'plain-3'],
      ['PUT', `/events/${event.event_id}`, '{"linkedId":"none-3"}', undefined, 'none-3'],
    ] as const;
    for (const [method, path, body, type, linked] of cases) {
      // A binary body makes fetch send no Content-Type at all.
      const res = await send(t, method, path, type === undefined ? new TextEncoder().encode(body).buffer : body, type);
      expect(res.status, `${method} ${type} ${res.text}`).toBe(200);
      expect((await stored()).linked_id).toBe(linked);
    }
  });

  it('a text/plain body that is no JSON is a 400 in the route family', async () => {
    const v4 = await send(t, 'PATCH', `/v4/events/${event.event_id}`, 'linked_id=x', 'text/plain');
    expect(v4.status).toBe(400);
    expect(v4.body.error.code).toBe('request_cannot_be_parsed');
    const v3 = await send(t, 'PUT', `/events/${event.event_id}`, '{', undefined);
    expect(v3.status).toBe(400);
    expect(v3.body.error.code).toBe('RequestCannotBeParsed');
  });

  it.each(['abc', '1708102555327', '1708102555327.NLOjm', '17081025553270.NLOjmg', '170810255532.NLOjmg', '1708102555327.NLOj+g', '1708102555327.NLOjmgx'])(
    'malformed event id %s -> 400 invalid event_id (v4) / request_id (v3), before any lookup',
    async (id) => {
      const path = encodeURIComponent(id);
      for (const res of [await call(t, 'GET', `/v4/events/${path}`), await call(t, 'PATCH', `/v4/events/${path}`, { body: { suspect: true } })]) {
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: { code: 'request_cannot_be_parsed', message: 'invalid event_id' } });
      }
      for (const res of [await call(t, 'GET', `/events/${path}`), await call(t, 'PUT', `/events/${path}`, { body: { suspect: true } })]) {
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: { code: 'RequestCannotBeParsed', message: 'invalid request_id' } });
      }
    },
  );

  it('a well-formed unknown event id stays 404', async () => {
    expect((await call(t, 'GET', '/v4/events/1708102555327.NLOjmg')).body.error.code).toBe('event_not_found');
    expect((await call(t, 'PATCH', '/v4/events/1708102555327.NLOjmg', { body: { suspect: true } })).status).toBe(404);
    expect((await call(t, 'GET', '/events/1708102555327.NLO-_g')).body.error.code).toBe('RequestNotFound');
  });
});
