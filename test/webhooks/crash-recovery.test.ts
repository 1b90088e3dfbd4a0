/**
 * kill -9 safety: the outbox lives in the database, so a delivery survives a crash of the
 * process sending it. The first attempt fails, the second is in flight when the process is
 * killed; a new process on the same SQLite file takes the delivery over once the dead
 * process's lease expired, and delivers it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
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

beforeAll(async () => {
  database = createTestSqliteDatabase();
  receiver = await startReceiver();
  store = openStore({ dataDir: database.config.dataDir! });
  await store.migrate();
});
afterAll(async () => {
  await child?.kill();
  await store?.destroy();
  await receiver?.close();
  await database?.drop();
});

it('a delivery in flight when the process is killed is delivered after a restart', async () => {
  const { bootstrap } = await ensureBootstrap(store, { region: 'us', now: Date.now() });
  const webhook = await createVerifiedWebhook(store, { workspaceId: bootstrap.workspaceId, environmentId: bootstrap.environmentId, url: receiver.url });
  // 1st request: 503; 2nd: never answered, the sending process is killed as it arrives (so
  // it can neither time out nor settle it, however slow the machine); later: 200.
  receiver.answer = (_req, res, index) => {
    if (index === 0) res.writeHead(503).end();
    else if (index === 1) child!.process.kill('SIGKILL');
    else res.writeHead(200).end();
  };
  const config = {
    dataDir: database.config.dataDir,
    allowPrivateWebhookTargets: true,
    webhookCaFile: receiver.caFile,
    // A short lease, so the restarted process does not wait the default 30 s for the dead one's.
    webhookTiming: { ...FAST_TIMING, leaseMs: 1500 },
  };

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
