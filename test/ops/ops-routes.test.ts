/**
 * The operations routes over HTTP: /health, /ready (with the failing check named) and
 * /metrics (Prometheus text, per service instance), on the main port (metrics to local
 * clients only) or on a separate ops listener.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kyselyOf } from '../../src/service/store/index.js';
import { identifyRequest, postIdentify } from '../helpers/identify-request.js';
import { ENGINES, startTestService, type TestService } from '../helpers/test-service.js';

async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; type: string | null }> {
  const response = await fetch(url, { headers });
  return { status: response.status, text: await response.text(), type: response.headers.get('content-type') };
}

/** The value of one sample line of the Prometheus text, or undefined. */
function sample(text: string, line: string): number | undefined {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe.each(ENGINES)('ops routes (%s, with Redis)', (engine) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ engine, redis: true });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('GET /health answers 200 {status: ok}, GET /ready lists the passing checks', async () => {
    expect(await get(`${t.url}/health`)).toMatchObject({ status: 200, text: '{"status":"ok"}' });
    const ready = await get(`${t.url}/ready`);
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text)).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok', redis: 'ok' } });
  });

  it('GET /metrics: requests per route pattern and status, identification outcomes, database load, event-loop lag', async () => {
    const first = await postIdentify(t.url, identifyRequest(t.keys.publicKey));
    await postIdentify(t.url, identifyRequest(t.keys.publicKey, { token: first.json.token }));
    await postIdentify(t.url, identifyRequest('pk_unknown'));
    await fetch(`${t.url}/v4/events/${first.json.event_id}`, { headers: { Authorization: `Bearer ${t.keys.secretKey}` } });

    const metrics = await get(`${t.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.type).toContain('text/plain');
    const text = metrics.text;
    expect(sample(text, 'tessera_http_requests_total{method="POST",route="/",status="200"}')).toBe(2);
    expect(sample(text, 'tessera_http_requests_total{method="GET",route="/v4/events/:event_id",status="200"}')).toBe(1);
    expect(text).not.toContain(first.json.event_id);
    expect(sample(text, 'tessera_http_request_duration_seconds_count{method="POST",route="/",status="200"}')).toBe(2);
    expect(sample(text, 'tessera_identifications_total{path="new"}')).toBe(1);
    expect(sample(text, 'tessera_identifications_total{path="token"}')).toBe(1);
    expect(sample(text, 'tessera_identification_refusals_total{code="public_api_key_not_found"}')).toBe(1);
    expect(sample(text, 'tessera_db_queued_writes')).toBe(0);
    if (engine === 'postgres') expect(sample(text, 'tessera_db_pool_connections{state="total"}')).toBeGreaterThan(0);
    expect(text).toContain('nodejs_eventloop_lag_seconds');
  });

  it('GET /metrics: the SQLite WAL checkpoint worker\'s steps and their time, on SQLite only', async () => {
    if (engine === 'postgres') {
      expect((await get(`${t.url}/metrics`)).text).not.toContain('tessera_sqlite_checkpoint');
      return;
    }
    // The worker runs a passive pass every quarter second.
    await expect.poll(async () => sample((await get(`${t.url}/metrics`)).text, 'tessera_sqlite_checkpoints_total{step="passive"}'), { timeout: 10_000 }).toBeGreaterThan(0);
    const text = (await get(`${t.url}/metrics`)).text;
    expect(sample(text, 'tessera_sqlite_checkpoint_seconds_total{step="passive"}')).toBeGreaterThan(0);
    // No restart yet (the log is far below its threshold): the series are there, at zero.
    for (const step of ['sync', 'restart']) {
      expect(sample(text, `tessera_sqlite_checkpoints_total{step="${step}"}`)).toBe(0);
      expect(sample(text, `tessera_sqlite_checkpoint_seconds_total{step="${step}"}`)).toBe(0);
    }
  });

  it('refuses /metrics on the main port to a request that came through a proxy', async () => {
    expect((await get(`${t.url}/metrics`, { 'X-Forwarded-For': '203.0.113.9' })).status).toBe(404);
  });

  it('GET /ready answers 503 naming the failed check: migrations, then Redis', async () => {
    const db = kyselyOf(t.service.ctx.store);
    const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name desc limit 1`.execute(db);
    const name = rows[0]!.name;
    await sql`delete from kysely_migration where name = ${name}`.execute(db);
    const notMigrated = await get(`${t.url}/ready`);
    expect(notMigrated.status).toBe(503);
    expect(JSON.parse(notMigrated.text)).toEqual({ status: 'unavailable', checks: { database: 'ok', migrations: 'failed', redis: 'ok' } });
    await sql`insert into kysely_migration (name, "timestamp") values (${name}, ${new Date().toISOString()})`.execute(db);

    t.service.ctx.redis!.disconnect();
    const noRedis = await get(`${t.url}/ready`);
    expect(noRedis.status).toBe(503);
    expect(JSON.parse(noRedis.text).checks).toEqual({ database: 'ok', migrations: 'ok', redis: 'failed' });
  });
});

describe('ops listener (opsPort)', () => {
  let a: TestService;
  let b: TestService;
  beforeAll(async () => {
    a = await startTestService({ config: { opsPort: 0 } });
    b = await startTestService({ config: { opsPort: 0 } });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('serves health, readiness and metrics on its own port; the main port no metrics', async () => {
    const ops = a.service.opsUrl!;
    expect(ops).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ops).not.toBe(a.url);
    expect((await get(`${ops}/health`)).status).toBe(200);
    expect((await get(`${ops}/ready`)).status).toBe(200);
    expect((await get(`${ops}/metrics`, { 'X-Forwarded-For': '203.0.113.9' })).status).toBe(200);
    expect((await get(`${a.url}/metrics`)).status).toBe(404);
    expect((await get(`${a.url}/health`)).status).toBe(200);
    // Nothing of the public API on the ops port.
    expect((await get(`${ops}/v4/events`)).status).toBe(404);
  });

  it("keeps each service instance's metrics apart", async () => {
    await postIdentify(a.url, identifyRequest(a.keys.publicKey));
    const ofA = (await get(`${a.service.opsUrl}/metrics`)).text;
    const ofB = (await get(`${b.service.opsUrl}/metrics`)).text;
    expect(sample(ofA, 'tessera_identifications_total{path="new"}')).toBe(1);
    expect(sample(ofB, 'tessera_identifications_total{path="new"}')).toBeUndefined();
  });
});
