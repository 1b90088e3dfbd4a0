/**
 * Visitor deletion takes the visitor's webhook deliveries with it (each is a copy of one of its
 * events): delivered, failed or pending, with their attempt log, so no copy remains and nothing
 * of that visitor is sent afterwards. Through the real service on both engines; the worker's
 * timer is stopped so that the test decides when deliveries are sent.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IdentifyResponse } from '../../src/protocol/index.js';
import { insertEvent } from '../../src/service/store/events.js';
import { kyselyOf } from '../../src/service/store/index.js';
import { listDeliveries } from '../../src/service/store/webhook-deliveries.js';
import { setWorkspaceDeletionEnabled } from '../../src/service/store/workspaces.js';
import { identifyRequest, postIdentify } from '../helpers/identify-request.js';
import { ENGINES, type TestService } from '../helpers/test-service.js';
import { call, DAY, makeEvent, manualClock, T0 } from '../server-api/fixtures.js';
import { createVerifiedWebhook, startServiceFor } from './helpers.js';
import { startReceiver, type Receiver } from './receiver.js';

const HOUR = 60 * 60 * 1000;

describe.each(ENGINES)('visitor deletion and webhook deliveries (%s)', (engine) => {
  let receiver: Receiver;
  let t: TestService;
  const clock = manualClock();

  beforeEach(async () => {
    clock.set(T0 - 2 * HOUR);
    receiver = await startReceiver();
    t = await startServiceFor(receiver, { engine, config: { clock: clock.now } });
    await t.service.webhooks.stop();
  });
  afterEach(async () => {
    await t?.close();
    await receiver?.close();
  });

  async function visit(token?: string): Promise<IdentifyResponse> {
    const res = await postIdentify(t.url, identifyRequest(t.keys.publicKey, token ? { token } : {}));
    expect(res.status).toBe(200);
    return res.json as IdentifyResponse;
  }

  it('deletes the deliveries of all its events, whatever their status, with their attempts', async () => {
    const store = t.service.ctx.store;
    await setWorkspaceDeletionEnabled(store, t.workspaceId, true);
    const webhook = await createVerifiedWebhook(store, { workspaceId: t.workspaceId, environmentId: null, url: receiver.url });
    const ids = { workspaceId: t.workspaceId, environmentId: t.environmentId };
    const queue = async (timestamp: number, visitorId: string) => {
      const event = makeEvent(timestamp, visitorId, { environment_id: t.environmentId });
      await insertEvent(store, event, ids, { deliveries: [{ webhookId: webhook.id, eventId: event.event_id, payload: JSON.stringify(event) }], now: timestamp });
      return event.event_id;
    };

    // First visit: sent and delivered (one attempt logged). Second visit: still pending.
    const first = await visit();
    await t.service.webhooks.runOnce();
    clock.set(T0 - HOUR);
    const second = await visit(first.token);
    expect(second.visitor_id).toBe(first.visitor_id);
    const visitorId = first.visitor_id;
    // An older event of the visitor (12 days: it stays, the deletion window is 10 days) whose delivery failed.
    const old = await queue(T0 - 12 * DAY, visitorId);
    await kyselyOf(store).updateTable('webhook_deliveries').set({ status: 'failed' }).where('event_id', '=', old).execute();
    // Another visitor's event, pending.
    const bystander = await queue(T0 - HOUR, 'visBystander');
    const statuses = new Map((await listDeliveries(store, webhook.id)).map((d) => [d.event_id, d.status]));
    expect(statuses).toEqual(new Map([[first.event_id, 'delivered'], [second.event_id, 'pending'], [old, 'failed'], [bystander, 'pending']]));

    clock.set(T0);
    expect((await call(t, 'DELETE', `/v4/visitors/${visitorId}`)).status).toBe(200);
    // Scheduled, not executed yet: nothing deleted.
    expect(await listDeliveries(store, webhook.id)).toHaveLength(4);
    clock.advance(10_000);
    await t.service.jobs.runOnce();

    const left = await listDeliveries(store, webhook.id);
    expect(left.map((d) => d.event_id)).toEqual([bystander]);
    const attempts = await kyselyOf(store).selectFrom('webhook_attempts').selectAll().execute();
    expect(attempts).toEqual([]);
    // No stored delivery body holds the visitor's ID any more: only the bystander's is left.
    const payloads = await kyselyOf(store).selectFrom('webhook_delivery_payloads').select('payload').execute();
    expect(payloads).toHaveLength(1);
    expect(payloads.some((p) => p.payload.includes(visitorId))).toBe(false);
    // The events: those of the last 10 days are gone, the older one stays (the contract's window).
    expect((await call(t, 'GET', `/v4/events/${second.event_id}`)).status).toBe(404);
    expect((await call(t, 'GET', `/v4/events/${old}`)).status).toBe(200);
    const record = await kyselyOf(store).selectFrom('visitor_deletions').selectAll().executeTakeFirstOrThrow();
    expect(record).toMatchObject({ status: 'done', deleted_events: 2 });

    // Sending now: only the bystander's event; nothing of the deleted visitor goes out.
    expect(receiver.requests).toHaveLength(1);
    await t.service.webhooks.runOnce();
    expect(receiver.requests.slice(1).map((r) => JSON.parse(r.body).event_id)).toEqual([bystander]);
  });
});
