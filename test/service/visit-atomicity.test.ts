/**
 * A visit's writes are one unit: the visitor's row and keys (identification) commit or roll
 * back with the visit's event. The failure is a real one from the database: a trigger the test
 * adds to its own fresh database refuses events of one URL, after identification has run.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kyselyOf } from '../../src/service/store/index.js';
import { identifyRequest, postIdentify, sampleSignals } from '../helpers/identify-request.js';
import { ENGINES, startTestService, type TestService } from '../helpers/test-service.js';

const REFUSED_URL = 'https://refused.example/checkout';

async function refuseEventsOf(t: TestService, url: string): Promise<void> {
  const db = kyselyOf(t.service.ctx.store);
  if (t.service.ctx.store.engine === 'sqlite') {
    await sql`CREATE TRIGGER refuse_event BEFORE INSERT ON events WHEN NEW.url = ${sql.lit(url)} BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`.execute(db);
  } else {
    await sql`CREATE FUNCTION refuse_event() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.url = ${sql.lit(url)} THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$`.execute(db);
    await sql`CREATE TRIGGER refuse_event BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse_event()`.execute(db);
  }
}

/** Every row of the tables a visit writes. */
async function visitTables(t: TestService) {
  const db = kyselyOf(t.service.ctx.store);
  return {
    visitors: await db.selectFrom('visitors').selectAll().orderBy('visitor_id').execute(),
    visitor_keys: await db.selectFrom('visitor_keys').selectAll().orderBy('visitor_id').orderBy('key').execute(),
    events: await db.selectFrom('events').select('event_id').orderBy('event_id').execute(),
    webhook_deliveries: await db.selectFrom('webhook_deliveries').select('id').orderBy('id').execute(),
  };
}

describe.each(ENGINES)('a visit whose event the database refuses, on %s', (engine) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ engine });
    await refuseEventsOf(t, REFUSED_URL);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('leaves no visitor, no visitor keys and no event of a new visitor', async () => {
    const before = await visitTables(t);
    const res = await postIdentify(t.url, identifyRequest(t.keys.publicKey, { url: REFUSED_URL, signals: sampleSignals({ fonts: ['New Visitor Font'] }) }));
    expect(res.status).toBe(500);
    expect(res.json.error.code).toBe('failed');
    expect(await visitTables(t)).toEqual(before);
  });

  it('leaves a returning visitor (row and keys) as it was', async () => {
    const signals = sampleSignals({ fonts: ['Returning Visitor Font'] });
    const first = await postIdentify(t.url, identifyRequest(t.keys.publicKey, { signals }));
    expect(first.status).toBe(200);
    const before = await visitTables(t);
    // With its token, and a changed signal: the visit would update the row and write new keys.
    const changed = { ...signals, timezone: 'Asia/Tokyo', timezone_offset: -540 };
    const res = await postIdentify(t.url, identifyRequest(t.keys.publicKey, { url: REFUSED_URL, token: first.json.token, signals: changed }));
    expect(res.status).toBe(500);
    expect(await visitTables(t)).toEqual(before);
  });

  it('still stores concurrent visits that did not fail, each with its visitor', async () => {
    const before = await visitTables(t);
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        postIdentify(
          t.url,
          identifyRequest(t.keys.publicKey, { url: i % 2 === 0 ? REFUSED_URL : 'https://shop.example.com/ok', signals: sampleSignals({ fonts: [`Concurrent ${i}`] }) }),
        ),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([500, 200, 500, 200, 500, 200]);
    const after = await visitTables(t);
    const stored = results.filter((r) => r.status === 200);
    expect(after.events.length - before.events.length).toBe(3);
    // Only visitors of stored visits were added (a refused visit's new visitor is not), and
    // every stored visit's visitor exists with its keys.
    const storedIds = new Set(stored.map((r) => r.json.visitor_id as string));
    const added = after.visitors.map((v) => v.visitor_id).filter((id) => !before.visitors.some((b) => b.visitor_id === id));
    for (const id of added) expect(storedIds.has(id)).toBe(true);
    const keyOwners = new Set(after.visitor_keys.map((k) => k.visitor_id));
    for (const id of storedIds) {
      expect(after.visitors.some((v) => v.visitor_id === id)).toBe(true);
      expect(keyOwners.has(id)).toBe(true);
    }
  });
});
