/**
 * Two service processes on one PostgreSQL database share the outbox: each event reaches the
 * receiver exactly once, whichever process stored it and whichever claimed its delivery
 * (FOR UPDATE SKIP LOCKED claims, store/webhook-deliveries.ts).
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
  }, 50_000);
  const received = receiver.requests.map((r) => JSON.parse(r.body).event_id as string).sort();
  expect(received).toEqual(eventIds);
  const attempts = await kyselyOf(store).selectFrom('webhook_attempts').select('delivery_id').execute();
  expect(attempts).toHaveLength(EVENTS);
  // Generous: two service processes start and identify 50 visitors on a shared (busy) CI machine.
}, 90_000);
