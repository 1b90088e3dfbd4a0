/**
 * Two service processes on one PostgreSQL database share the outbox: each event reaches the
 * receiver once, whichever process stored it and whichever claimed its delivery (FOR UPDATE
 * SKIP LOCKED claims, store/webhook-deliveries.ts); a second receipt only follows a failed attempt.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureBootstrap } from '../../src/service/bootstrap.js';
import { kyselyOf, openStore, type Store } from '../../src/service/store/index.js';
import { identifyRequest, postIdentify } from '../helpers/identify-request.js';
import { createTestPostgresDatabase, type TestDatabase } from '../helpers/test-service.js';
import { startChildService, type ChildService } from './child-service.js';
import { FAST_TIMING, createVerifiedWebhook } from './helpers.js';
import { startReceiver, waitFor, type Receiver } from './receiver.js';

const EVENTS = 50;

let database: TestDatabase;
let receiver: Receiver;
let store: Store;
const children: ChildService[] = [];

beforeAll(async () => {
  database = await createTestPostgresDatabase();
  receiver = await startReceiver();
  store = openStore({ dataDir: '', databaseUrl: database.config.databaseUrl! });
  await store.migrate();
});
afterAll(async () => {
  for (const child of children) await child.kill();
  await store?.destroy();
  await receiver?.close();
  await database?.drop();
});

it('delivers each event exactly once with two processes draining one outbox', async () => {
  const { bootstrap } = await ensureBootstrap(store, { region: 'us', now: Date.now() });
  const webhook = await createVerifiedWebhook(store, { workspaceId: bootstrap.workspaceId, environmentId: null, url: receiver.url });
  const config = { databaseUrl: database.config.databaseUrl, allowPrivateWebhookTargets: true, webhookCaFile: receiver.caFile, webhookTiming: FAST_TIMING };
  children.push(await startChildService(config), await startChildService(config));

  // Concurrent requests to both processes: their event inserts (with deliveries) are batched.
  const responses = await Promise.all(
    Array.from({ length: EVENTS }, (_, i) => postIdentify(children[i % 2]!.url, identifyRequest(bootstrap.publicKey))),
  );
  expect(responses.every((r) => r.status === 200)).toBe(true);
  const eventIds = responses.map((r) => r.json.event_id as string).sort();

  await waitFor(async () => {
    const rows = await kyselyOf(store).selectFrom('webhook_deliveries').select('status').where('webhook_id', '=', webhook.id).execute();
    return rows.length === EVENTS && rows.every((r) => r.status === 'delivered');
  }, 50_000).catch(async (err: Error) => {
    // What was left undelivered, and why, to tell a slow machine from a stuck delivery.
    const db = kyselyOf(store);
    const left = await db.selectFrom('webhook_deliveries').select(['status', 'attempts', 'leased_until', 'next_attempt_at']).where('status', '!=', 'delivered').execute();
    const errors = await db.selectFrom('webhook_attempts').select('error').where('error', 'is not', null).limit(5).execute();
    throw new Error(`${err.message}; now ${Date.now()}; received ${receiver.requests.length}; undelivered ${JSON.stringify(left)}; errors ${JSON.stringify(errors)}`);
  });
  // Exactly once, unless an attempt failed (at least once: a receipt whose answer came too late
  // for the sender is sent again). Two processes never send one delivery at the same time, so
  // every receipt beyond the first of an event matches a failed attempt of its delivery.
  const received = receiver.requests.map((r) => JSON.parse(r.body).event_id as string);
  expect([...new Set(received)].sort()).toEqual(eventIds);
  const failed = await kyselyOf(store)
    .selectFrom('webhook_attempts')
    .innerJoin('webhook_deliveries', 'webhook_deliveries.id', 'webhook_attempts.delivery_id')
    .select('webhook_deliveries.event_id')
    .where('webhook_attempts.http_status', 'is', null)
    .execute();
  expect(received.length - EVENTS).toBeLessThanOrEqual(failed.length);
  for (const eventId of new Set(received)) {
    const receipts = received.filter((id) => id === eventId).length;
    expect(receipts - 1, eventId).toBeLessThanOrEqual(failed.filter((f) => f.event_id === eventId).length);
  }
  // Generous: two service processes start and identify 50 visitors on a shared (busy) CI machine.
}, 90_000);
