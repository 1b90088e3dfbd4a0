/**
 * Structured logs over real requests: one access line per request; secrets sent in
 * `Authorization`, `Auth-API-Key` and the `api_key` query parameter never reach a log line, and
 * every 5xx logs exactly one error line
 * whose request id the response carries in `X-Request-Id` (the proxy's id behind a trusted proxy).
 */
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { kyselyOf } from '../../src/service/store/index.js';
import { identifyRequest, postIdentify } from '../helpers/identify-request.js';
import { captureLogs } from '../helpers/log-capture.js';
import { ENGINES, startTestService, type TestService } from '../helpers/test-service.js';

const started: TestService[] = [];
afterEach(async () => {
  for (const t of started.splice(0)) await t.close();
});

async function start(engine: 'sqlite' | 'postgres', config: { trustProxy?: boolean } = {}) {
  const logs = captureLogs();
  const t = await startTestService({ engine, config: { logLevel: 'trace', logDestination: logs.destination, ...config } });
  started.push(t);
  return { t, logs };
}

/** Makes every request that reads or writes events fail unexpectedly. */
async function breakEvents(t: TestService): Promise<void> {
  await sql`drop table events`.execute(kyselyOf(t.service.ctx.store));
}

describe.each(ENGINES)('logs (%s)', (engine) => {
  it('never logs the keys sent in Authorization, Auth-API-Key or api_key, nor visitor tokens', async () => {
    const { t, logs } = await start(engine);
    const { secretKey, publicKey, managementKey } = t.keys;
    const identified = await postIdentify(t.url, identifyRequest(publicKey));
    await postIdentify(t.url, identifyRequest(publicKey, { token: identified.json.token }));
    await fetch(`${t.url}/v4/events?limit=1`, { headers: { Authorization: `Bearer ${secretKey}` } });
    await fetch(`${t.url}/events/search?limit=1`, { headers: { 'Auth-API-Key': secretKey } });
    await fetch(`${t.url}/visitors/${identified.json.visitor_id}?api_key=${secretKey}`);
    await fetch(`${t.url}/events/search?api_key=${managementKey}&limit=1`);
    await fetch(`${t.url}/v4/events?limit=1`, { headers: { Authorization: `Bearer ${managementKey}` } });
    // One access line per request, the secret query parameter's value replaced.
    const access = logs.records().filter((r) => r.msg === 'request completed');
    expect(access).toHaveLength(7);
    expect(access.map((r) => (r.req as { url: string }).url)).toContain(`/visitors/${identified.json.visitor_id}?api_key=%5BRedacted%5D`);
    for (const secret of [secretKey, managementKey, identified.json.token as string]) {
      expect(logs.lines.filter((line) => line.includes(secret))).toEqual([]);
    }
  });

  it('writes one access line per request: request id, method, URL, client address, status and response time', async () => {
    const { t, logs } = await start(engine);
    const response = await fetch(`${t.url}/v4/events?limit=1`, { headers: { Authorization: `Bearer ${t.keys.secretKey}` } });
    expect(response.status).toBe(200);
    const access = logs.records().filter((r) => (r.req as { url?: string } | undefined)?.url === '/v4/events?limit=1');
    expect(access).toHaveLength(1);
    expect(access[0]).toMatchObject({ level: 30, msg: 'request completed', req: { method: 'GET', remoteAddress: '127.0.0.1' }, res: { statusCode: 200 } });
    expect(access[0]!.responseTime).toBeGreaterThan(0);
    // Every line of the request carries its id (here: that one line).
    expect(logs.records().filter((r) => r.reqId === access[0]!.reqId)).toHaveLength(1);
  });

  it('logs each 5xx once, with the request id the response carries (ingestion, v4, v3)', async () => {
    const { t, logs } = await start(engine);
    const eventId = '1700000000000.abcdef';
    await breakEvents(t);
    const responses = [
      await fetch(`${t.url}/?ci=js/4.0.0`, { method: 'POST', body: JSON.stringify(identifyRequest(t.keys.publicKey)) }),
      await fetch(`${t.url}/v4/events/${eventId}`, { headers: { Authorization: `Bearer ${t.keys.secretKey}` } }),
      await fetch(`${t.url}/events/${eventId}`, { headers: { 'Auth-API-Key': t.keys.secretKey } }),
    ];
    const ids = new Set<string>();
    for (const response of responses) {
      expect(response.status).toBe(500);
      const id = response.headers.get('x-request-id')!;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      ids.add(id);
      const errors = logs.records().filter((r) => r.level >= 50 && r.reqId === id);
      expect(errors).toHaveLength(1);
    }
    expect(ids.size).toBe(3);
  });
});

describe('request ids behind a proxy', () => {
  it('takes a plain incoming X-Request-Id only when the proxy is trusted', async () => {
    const trusted = await start('sqlite', { trustProxy: true });
    const untrusted = await start('sqlite');
    await breakEvents(trusted.t);
    await breakEvents(untrusted.t);
    const fail = (t: TestService, id: string) =>
      fetch(`${t.url}/v4/events/1700000000000.abcdef`, { headers: { Authorization: `Bearer ${t.keys.secretKey}`, 'X-Request-Id': id } });

    const taken = await fail(trusted.t, 'lb-7f3a.42');
    expect(taken.headers.get('x-request-id')).toBe('lb-7f3a.42');
    expect(trusted.logs.records().filter((r) => r.level >= 50 && r.reqId === 'lb-7f3a.42')).toHaveLength(1);
    // Not plain (could forge log content): replaced.
    expect((await fail(trusted.t, 'a"b'.repeat(3))).headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect((await fail(untrusted.t, 'lb-7f3a.42')).headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
