/**
 * Hardening of untrusted input, over HTTP on both engines: JSON nested deeper than the service
 * can handle and NUL characters are refused at the edge with a 400 in each API's shape (they
 * used to answer 500), and events stored deep before that check existed still read back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/service/http/json-depth.js';
import { kyselyOf } from '../../src/service/store/index.js';
import { identifyRequest, postIdentify } from '../helpers/identify-request.js';
import { ENGINES, startTestService, type TestService } from '../helpers/test-service.js';
import { call, liftRateLimit, makeEvent, manualClock, seed, T0 } from '../server-api/fixtures.js';

/** `{"a":{"a":...1...}}`, `levels` objects deep, as text (JSON.stringify cannot go that deep). */
function nestedText(levels: number): string {
  return '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
}

/** `body` as JSON with the value of `slot` (a placeholder string) replaced by raw JSON text. */
function withRaw(body: unknown, slot: string, raw: string): string {
  return JSON.stringify(body).replace(JSON.stringify(slot), raw);
}

describe.each(ENGINES)('hardening: deep JSON and NUL characters (%s)', (engine) => {
  let t: TestService;
  const clock = manualClock();

  beforeAll(async () => {
    t = await startTestService({ engine, clock: clock.now });
    await liftRateLimit(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses a POST / body nested too deep in tags or in an unknown signal with 400 request_cannot_be_parsed', async () => {
    for (const levels of [5000, MAX_JSON_DEPTH + 1]) {
      const inTags = await postIdentify(t.url, null, { rawBody: withRaw(identifyRequest(t.keys.publicKey, { tags: 'SLOT' }), 'SLOT', nestedText(levels)) });
      expect(inTags.status).toBe(400);
      expect(inTags.json).toEqual({ v: 1, error: { code: 'request_cannot_be_parsed', message: expect.stringContaining('deeper than 32') } });
      const request = identifyRequest(t.keys.publicKey);
      const inSignal = withRaw({ ...request, signals: { ...request.signals, future_signal: 'SLOT' } }, 'SLOT', nestedText(levels));
      expect((await postIdentify(t.url, null, { rawBody: inSignal })).status).toBe(400);
    }
    // Nesting within the bound is fine.
    const shallow = withRaw(identifyRequest(t.keys.publicKey, { tags: 'SLOT' }), 'SLOT', nestedText(MAX_JSON_DEPTH - 2));
    expect((await postIdentify(t.url, null, { rawBody: shallow })).status).toBe(200);
  });

  it('refuses deep Server API bodies with the contract error of v4 and v3', async () => {
    const [event] = await seed(t, [makeEvent(T0 - 1000, 'visDeepBody')]);
    const v4 = await call(t, 'PATCH', `/v4/events/${event!.event_id}`, { rawBody: withRaw({ tags: 'SLOT' }, 'SLOT', nestedText(5000)) });
    expect(v4.status).toBe(400);
    expect(v4.body.error).toMatchObject({ code: 'request_cannot_be_parsed', violations: [{ property: 'body', message: expect.stringContaining('32') }] });
    const v3 = await call(t, 'PUT', `/events/${event!.event_id}`, { rawBody: withRaw({ tag: 'SLOT' }, 'SLOT', nestedText(5000)) });
    expect(v3.status).toBe(400);
    expect(v3.body.error.code).toBe('RequestCannotBeParsed');
  });

  it('reads back an event stored nested deeper than the service can serialise, on every read route', async () => {
    const [event] = await seed(t, [makeEvent(T0 - 1000, 'visDeepStored', { linked_id: 'deep' })]);
    const payload = withRaw({ ...event, tags: 'SLOT' }, 'SLOT', nestedText(20_000));
    await kyselyOf(t.service.ctx.store).updateTable('events').set({ payload }).where('event_id', '=', event!.event_id).execute();

    const v3 = await call(t, 'GET', `/events/${event!.event_id}`);
    expect(v3.status).toBe(200);
    expect(v3.body.products.identification.data.visitorId).toBe('visDeepStored');
    expect(JSON.stringify(v3.body.products.identification.data.tag)).toContain('null');
    const search = await call(t, 'GET', '/events/search?limit=10&visitor_id=visDeepStored');
    expect(search.status).toBe(200);
    expect(search.body.events).toHaveLength(1);
    const visitors = await call(t, 'GET', '/visitors/visDeepStored');
    expect(visitors.status).toBe(200);
    expect(visitors.body.visits).toHaveLength(1);
    expect((await call(t, 'GET', `/v4/events/${event!.event_id}`)).status).toBe(200);
    // An update rewrites the payload: its over-deep part is cut, not a 500.
    expect((await call(t, 'PATCH', `/v4/events/${event!.event_id}`, { body: { suspect: true } })).status).toBe(200);
  });

  it('refuses NUL characters in JSON bodies with a 400 naming the field', async () => {
    const unknownKey = await postIdentify(t.url, identifyRequest('pk_\u0000'));
    expect(unknownKey.status).toBe(400);
    expect(unknownKey.json.error).toEqual({ code: 'request_cannot_be_parsed', message: 'invalid request: body.api_key must not contain NUL characters' });
    const inTags = await postIdentify(t.url, identifyRequest(t.keys.publicKey, { tags: { list: ['ok', 'a\u0000b'] } }));
    expect(inTags.status).toBe(400);
    expect(inTags.json.error.message).toContain('body.tags.list[1]');
    const inKey = await postIdentify(t.url, identifyRequest(t.keys.publicKey, { tags: { 'k\u0000': 1 } }));
    expect(inKey.status).toBe(400);

    const [event] = await seed(t, [makeEvent(T0 - 1000, 'visNul')]);
    const v4 = await call(t, 'PATCH', `/v4/events/${event!.event_id}`, { body: { linked_id: 'x\u0000' } });
    expect(v4.status).toBe(400);
    expect(v4.body.error.violations).toEqual([{ property: 'body.linked_id', message: 'must not contain NUL characters' }]);
    const v3 = await call(t, 'PUT', `/events/${event!.event_id}`, { body: { linkedId: 'x\u0000' } });
    expect(v3.status).toBe(400);
    expect(v3.body.error.code).toBe('RequestCannotBeParsed');
  });

  it('refuses NUL characters in path and query parameters, authenticated or not', async () => {
    const path = await call(t, 'GET', '/v4/events/abc%00def');
    expect(path.status).toBe(400);
    expect(path.body.error.violations).toEqual([{ property: 'path.event_id', message: 'must not contain NUL characters' }]);
    // The key is checked before any parameter (authentication first); a NUL in it is an unknown
    // key, and never reaches the database (secret keys are looked up by their hash).
    const apiKey = await call(t, 'GET', '/events/search?api_key=sk%00', { auth: 'none' });
    expect(apiKey.status).toBe(403);
    expect(apiKey.body.error).toMatchObject({ code: 'TokenNotFound' });
    const plain = await call(t, 'GET', '/visitors/visNul?linked_id=%00');
    expect(plain.status).toBe(400);
    expect(plain.body).toEqual({ error: 'invalid request: query.linked_id must not contain NUL characters' });
    const unauthenticated = await call(t, 'GET', `/v4/visitors/${encodeURIComponent('v\u0000')}`, { auth: 'none' });
    expect(unauthenticated.status).toBe(400);
  });
});
