/**
 * kill -9 safety: the outbox lives in the database, so a delivery survives a crash of the
 * process sending it. A process is killed while an attempt is in flight: the first, which it
 * sends as soon as the event is stored (the hand-off), or a retry it claimed from the outbox;
 * a new process on the same SQLite file takes the delivery over once the dead process's lease
 * expired, and delivers it.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ensureBootstrap } from '../../src/service/bootstrap.js';
import { openStore, type Store } from '../../src/service/store/index.js';
import { listAttempts, listDeliveries } from '../../src/service/store/webhook-deliveries.js';
import { identifyRequest, postIdentify } from '../helpers/identify-request.js';
import { createTestSqliteDatabase, type TestDatabase } from '../helpers/test-service.js';
import { startChildService, type ChildService } from './child-service.js';
import { FAST_TIMING, createVerifiedWebhook } from './helpers.js';
import { startReceiver, waitFor, type Receiver } from './receiver.js';

let database: TestDatabase;
let receiver: Receiver;
let store: Store;
let child: ChildService | undefined;

beforeEach(async () => {
  database = createTestSqliteDatabase();
  receiver = await startReceiver();
  store = openStore({ dataDir: database.config.dataDir! });
  await store.migrate();
});
afterEach(async () => {
  await child?.kill();
  child = undefined;
  await store?.destroy();
  await receiver?.close();
  await database?.drop();
});

/**
 * The service's settings in these tests: a short lease, so a restarted process does not wait the
 * default 30 s for the dead one's. Not too short: the first attempt's 503 must be settled within
 * its lease. With 1.5 s a loaded CI machine once settled it later: a pass had claimed the
 * expired lease and sent the retry first (correct, but not the sequence these tests follow).
 */
const serviceConfig = () => ({
  dataDir: database.config.dataDir,
  allowPrivateWebhookTargets: true,
  webhookCaFile: receiver.caFile,
  webhookTiming: { ...FAST_TIMING, leaseMs: 4000 },
});

it('a first attempt in flight when the process is killed is delivered after a restart', async () => {
  const { bootstrap } = await ensureBootstrap(store, { region: 'us', now: Date.now() });
  const webhook = await createVerifiedWebhook(store, { workspaceId: bootstrap.workspaceId, environmentId: bootstrap.environmentId, url: receiver.url });
  // 1st request (handed off as the event is stored): never answered, the sending process is
  // killed as it arrives; later: 200.
  receiver.answer = (_req, res, index) => {
    if (index === 0) child!.process.kill('SIGKILL');
    else res.writeHead(200).end();
  };

  child = await startChildService(serviceConfig());
  const identified = await postIdentify(child.url, identifyRequest(bootstrap.publicKey));
  expect(identified.status).toBe(200);
  await waitFor(() => receiver.requests.length === 1);
  await child.kill();

  // Queued leased to the dead process, never settled.
  const [pending] = await listDeliveries(store, webhook.id);
  expect(pending).toMatchObject({ status: 'pending', attempts: 0, event_id: identified.json.event_id });
  expect(pending!.leased_until).not.toBeNull();

  child = await startChildService(serviceConfig());
  const [delivered] = await waitFor(async () => {
    const rows = await listDeliveries(store, webhook.id);
    return rows[0]?.status === 'delivered' && rows;
  });
  expect(receiver.requests).toHaveLength(2);
  expect(receiver.requests[1]!.body).toBe(receiver.requests[0]!.body);
  expect(JSON.parse(receiver.requests[1]!.body).event_id).toBe(identified.json.event_id);
  expect(delivered!.attempts).toBe(1);
  expect((await listAttempts(store, webhook.id)).map((a) => a.http_status)).toEqual([200]);
  await child.stop();
});

it('a retry in flight when the process is killed is delivered after a restart', async () => {
  const { bootstrap } = await ensureBootstrap(store, { region: 'us', now: Date.now() });
  const webhook = await createVerifiedWebhook(store, { workspaceId: bootstrap.workspaceId, environmentId: bootstrap.environmentId, url: receiver.url });
  // 1st request: 503; 2nd (claimed from the outbox): never answered, the sending process is
  // killed as it arrives (so it can neither time out nor settle it, however slow the machine); later: 200.
  receiver.answer = (_req, res, index) => {
    if (index === 0) res.writeHead(503).end();
    else if (index === 1) child!.process.kill('SIGKILL');
    else res.writeHead(200).end();
  };
  const config = serviceConfig();

  child = await startChildService(config);
  const identified = await postIdentify(child.url, identifyRequest(bootstrap.publicKey));
  expect(identified.status).toBe(200);
  await waitFor(() => receiver.requests.length === 2);
  await child.kill(); // waits for the exit

  const [pending] = await listDeliveries(store, webhook.id);
  expect(pending).toMatchObject({ status: 'pending', attempts: 1, event_id: identified.json.event_id });
  expect(pending!.leased_until).not.toBeNull();

  child = await startChildService(config);
  const [delivered] = await waitFor(async () => {
    const rows = await listDeliveries(store, webhook.id);
    return rows[0]?.status === 'delivered' && rows;
  });
  expect(receiver.requests).toHaveLength(3);
  expect(JSON.parse(receiver.requests[2]!.body).event_id).toBe(identified.json.event_id);
  // The killed attempt was never settled: two attempts are logged, the 503 and the 200.
  expect(delivered!.attempts).toBe(2);
  expect((await listAttempts(store, webhook.id)).map((a) => a.http_status)).toEqual([200, 503]);
  await child.stop();
});
