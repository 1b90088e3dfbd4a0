/**
 * The one error model over HTTP: every failure, including the router's own (unknown route,
 * malformed JSON, oversized body, wrong content type, schema validation), answers in the shape
 * of the API it falls under; an unexpected one is a 500 `failed` carrying the request id.
 */
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_REQUEST_BYTES } from '../../src/protocol/index.js';
import { kyselyOf } from '../../src/service/store/index.js';
import { errorHandler } from '../../src/service/http/error-handler.js';
import { ValidationError } from '../../src/service/http/errors.js';
import { identifyRequest, postIdentify } from '../helpers/identify-request.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

const EVENT_ID = '1768478400000.abcdef';
const HUGE = JSON.stringify({ linked_id: 'x', pad: 'y'.repeat(MAX_REQUEST_BYTES) });

async function send(url: string, method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}) {
  const res = await fetch(`${url}${path}`, { method, body: init.body, headers: init.headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
}

describe('error model of the service', () => {
  let t: TestService;
  const json = { 'Content-Type': 'application/json' };

  beforeAll(async () => {
    t = await startTestService({ engine: 'sqlite' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('unknown routes answer 404 in the shape of the API their URL falls under', async () => {
    const v4 = await send(t.url, 'POST', '/v4/nope');
    expect(v4.status).toBe(404);
    expect(v4.body).toEqual({ error: { code: 'not_found', message: 'no route for POST /v4/nope' } });
    expect((await send(t.url, 'GET', '/v4/events/a/b')).body.error.code).toBe('not_found');

    const v3 = await send(t.url, 'GET', '/events?x=1');
    expect(v3.status).toBe(404);
    expect(v3.body).toEqual({ error: { code: 'NotFound', message: 'no route for GET /events' } });

    const outside = await send(t.url, 'GET', '/nowhere');
    expect(outside.status).toBe(404);
    expect(outside.body).toEqual({ error: { code: 'not_found', message: 'no route for GET /nowhere' } });
    // Fastify answers an unknown method on a known path as an unknown route.
    expect((await send(t.url, 'DELETE', '/v4/events')).body).toEqual({
      error: { code: 'not_found', message: 'no route for DELETE /v4/events' },
    });
  });

  // Found by test/fuzz/routes.fuzz.test.ts: unknown routes under these prefixes answered the
  // generic family's `request_cannot_be_parsed` instead of the Management API's `invalid_request`.
  it('unknown routes under /webhooks and /encryption-keys answer in the Management API shape', async () => {
    for (const path of ['/webhooks/wh_x', '/encryption-keys/ek_x']) {
      const res = await send(t.url, 'PUT', path, { body: '{}', headers: { 'Content-Type': '' } });
      expect(res.status, path).toBe(400);
      expect(res.body.error.code, path).toBe('invalid_request');
    }
  });

  // Found by the fuzz test: the router's own refusals (invalid percent-encoding, a path
  // parameter over its length bound) were answered by Fastify in its shape
  // ({error: "Bad Request", code: "FST_ERR_..."}, 414 for the long parameter).
  it('URLs the router refuses answer 400 in the shape of their family', async () => {
    const long = 'x'.repeat(500);
    const cases: [string, string, unknown][] = [
      ['GET', '/v4/events/%', { error: { code: 'request_cannot_be_parsed', message: expect.any(String) } }],
      ['GET', `/v4/events/${long}`, { error: { code: 'request_cannot_be_parsed', message: expect.any(String) } }],
      ['GET', '/events/%zz', { error: { code: 'RequestCannotBeParsed', message: expect.any(String) } }],
      ['GET', '/visitors/%', { error: expect.any(String) }],
      ['GET', `/visitors/${long}`, { error: expect.any(String) }],
      ['DELETE', '/webhooks/%', { error: { code: 'invalid_request', message: expect.any(String) } }],
      ['GET', '/v4/%/iife.js', { error: { code: 'request_cannot_be_parsed', message: expect.any(String) } }],
    ];
    for (const [method, path, body] of cases) {
      const res = await send(t.url, method, path);
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 400, body });
    }
  });

  // Found by the fuzz test: a Server API v3 validation error carried `violations`, which the
  // v3 shape never has (docs/errors.md).
  it('a Server API v3 validation error carries no violations', async () => {
    const res = await send(t.url, 'GET', '/events/a%00b/x');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: 'RequestCannotBeParsed', message: expect.any(String) } });
  });

  // The Server API checks the key before it reads a body (a request without one is a 403).
  const v4Key = () => ({ Authorization: `Bearer ${t.keys.secretKey}` });
  const v3Key = () => ({ 'Auth-API-Key': t.keys.secretKey });

  it('malformed JSON is a 400 request_cannot_be_parsed of the family', async () => {
    const agent = await postIdentify(t.url, null, { rawBody: '{"v":1,' });
    expect(agent.status).toBe(400);
    expect(agent.json).toEqual({ v: 1, error: { code: 'request_cannot_be_parsed', message: 'request body is not valid JSON' } });

    const v4 = await send(t.url, 'PATCH', `/v4/events/${EVENT_ID}`, { body: '{"linked_id": ', headers: { ...json, ...v4Key() } });
    expect(v4.status).toBe(400);
    expect(v4.body.error.code).toBe('request_cannot_be_parsed');
    expect(Object.keys(v4.body.error)).toEqual(['code', 'message']);

    const v3 = await send(t.url, 'PUT', `/events/${EVENT_ID}`, { body: '{', headers: { ...json, ...v3Key() } });
    expect(v3.status).toBe(400);
    expect(v3.body.error.code).toBe('RequestCannotBeParsed');
  });

  it('a body over the limit is a 413 payload_too_large of the family', async () => {
    const v4 = await send(t.url, 'PATCH', `/v4/events/${EVENT_ID}`, { body: HUGE, headers: { ...json, ...v4Key() } });
    expect(v4.status).toBe(413);
    expect(v4.body).toEqual({ error: { code: 'payload_too_large', message: 'payload too large' } });

    const v3 = await send(t.url, 'PUT', `/events/${EVENT_ID}`, { body: HUGE, headers: { ...json, ...v3Key() } });
    expect(v3.status).toBe(413);
    expect(v3.body).toEqual({ error: { code: 'PayloadTooLarge', message: 'payload too large' } });

    const agent = await send(t.url, 'POST', '/', { body: HUGE, headers: { 'Content-Type': 'text/plain' } });
    expect(agent.status).toBe(413);
    expect(agent.body).toEqual({ v: 1, error: { code: 'payload_too_large', message: 'payload too large' } });
  });

  it('an unsupported content type is a 400 request_cannot_be_parsed', async () => {
    const v4 = await send(t.url, 'PATCH', `/v4/events/${EVENT_ID}`, { body: '<x/>', headers: { 'Content-Type': 'application/xml', ...v4Key() } });
    expect(v4.status).toBe(400);
    expect(v4.body.error.code).toBe('request_cannot_be_parsed');
    const v3 = await send(t.url, 'PUT', `/events/${EVENT_ID}`, { body: '<x/>', headers: { 'Content-Type': 'application/xml', ...v3Key() } });
    expect(v3.status).toBe(400);
    expect(v3.body.error.code).toBe('RequestCannotBeParsed');
  });

  it('a schema validation failure names the violations (generic family) or keeps the agent shape', async () => {
    const demo = await send(t.url, 'GET', '/demo/events');
    expect(demo.status).toBe(400);
    expect(demo.body.error.code).toBe('request_cannot_be_parsed');
    expect(demo.body.error.violations).toEqual([{ property: 'querystring.visitor_id', message: expect.stringContaining('visitor_id') }]);

    const agent = await postIdentify(t.url, { ...identifyRequest(t.keys.publicKey), sdk: 'js' });
    expect(agent.status).toBe(400);
    expect(agent.json.v).toBe(1);
    expect(agent.json.error.code).toBe('request_cannot_be_parsed');
    expect(agent.json.error.violations).toBeUndefined();
  });

  it('an unexpected failure is a 500 `failed` of the family with the request id in X-Request-Id', async () => {
    const ok = await postIdentify(t.url, identifyRequest(t.keys.publicKey));
    expect(ok.status).toBe(200);
    const eventId = ok.json.event_id as string;
    await kyselyOf(t.service.ctx.store).updateTable('events').set({ payload: '{"event_id": broken' }).where('event_id', '=', eventId).execute();

    const v4 = await send(t.url, 'GET', `/v4/events/${eventId}`, { headers: { Authorization: `Bearer ${t.keys.secretKey}` } });
    expect(v4.status).toBe(500);
    expect(v4.body).toEqual({ error: { code: 'failed', message: 'internal server error' } });
    expect(v4.headers.get('x-request-id')).toMatch(/\S/);

    const v3 = await send(t.url, 'GET', `/events/${eventId}`, { headers: { 'Auth-API-Key': t.keys.secretKey } });
    expect(v3.status).toBe(500);
    expect(v3.body).toEqual({ error: { code: 'Failed', message: 'internal server error' } });
    expect(v3.headers.get('x-request-id')).toMatch(/\S/);
    expect(v3.headers.get('x-request-id')).not.toBe(v4.headers.get('x-request-id'));
  });
});

describe('error plugin on a small app', () => {
  async function smallApp(lines: string[] = []) {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const app = Fastify({ loggerInstance: pino({ level: 'error' }, sink) });
    await app.register(errorHandler);
    const violations = [{ property: 'name', message: 'must have at least 3 characters' }];
    app.post('/m', { config: { errorFamily: 'management' } }, () => {
      throw new ValidationError('invalid name', violations);
    });
    app.post('/a', { config: { errorFamily: 'agent' } }, () => {
      throw new ValidationError('invalid name', violations);
    });
    app.get('/boom', { config: { errorFamily: 'management' } }, () => {
      throw new Error('database on fire');
    });
    return app;
  }

  it('renders a ValidationError with its violations in the management family', async () => {
    const app = await smallApp();
    const res = await app.inject({ method: 'POST', url: '/m' });
    expect(res.statusCode).toBe(400);
    // The Management API names Fastify's and the common 400 `invalid_request`.
    expect(res.json()).toEqual({
      error: { code: 'invalid_request', message: 'invalid name', violations: [{ property: 'name', message: 'must have at least 3 characters' }] },
    });
    // The agent's protocol shape has no violations.
    expect((await app.inject({ method: 'POST', url: '/a' })).json()).toEqual({
      v: 1,
      error: { code: 'request_cannot_be_parsed', message: 'invalid name' },
    });
    await app.close();
  });

  it('logs an unexpected error once with the request id and answers 500 `failed` without its details', async () => {
    const lines: string[] = [];
    const app = await smallApp(lines);
    const res = await app.inject({ method: 'GET', url: '/boom' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: { code: 'failed', message: 'internal server error' } });
    const requestId = res.headers['x-request-id'];
    expect(requestId).toBeTruthy();
    const logged = lines.map((l) => JSON.parse(l)).filter((l) => l.err?.message === 'database on fire');
    expect(logged).toHaveLength(1);
    expect(logged[0].reqId).toBe(requestId);
    await app.close();
  });
});
