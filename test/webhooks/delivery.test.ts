/**
 * Webhook delivery end to end: the real service over HTTP stores an identification event, its
 * worker sends it to a real HTTPS receiver on 127.0.0.1, signed, retried until it is accepted.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isValidWebhookSignature } from '../../src/server/index.js';
import { createEnvironment } from '../../src/service/store/environments.js';
import { getEventPayload } from '../../src/service/store/events.js';
import { kyselyOf, openStore } from '../../src/service/store/index.js';
import { listAttempts, listDeliveries, resendDelivery } from '../../src/service/store/webhook-deliveries.js';
import { createWebhook, updateWebhook } from '../../src/service/store/webhooks.js';
import { identifyRequest, postIdentify } from '../helpers/identify-request.js';
import type { TestService } from '../helpers/test-service.js';
import { FAST_TIMING, createVerifiedWebhook, startServiceFor } from './helpers.js';
import { startReceiver, waitFor, type Receiver } from './receiver.js';

let receiver: Receiver;
let t: TestService;

beforeEach(async () => {
  receiver = await startReceiver();
  t = await startServiceFor(receiver);
});
afterEach(async () => {
  await t?.close();
  await receiver?.close();
});

async function identify(): Promise<string> {
  const response = await postIdentify(t.url, identifyRequest(t.keys.publicKey));
  expect(response.status).toBe(200);
  return response.json.event_id as string;
}

describe('webhook delivery', () => {
  it('sends the stored v4 event, signed and with basic auth', async () => {
    const webhook = await createVerifiedWebhook(t.service.ctx.store, {
      workspaceId: t.workspaceId,
      environmentId: t.environmentId,
      url: receiver.url,
      basicAuth: { username: 'hook', password: 's3cret' },
    });
    const eventId = await identify();
    const [request] = await waitFor(() => receiver.requests.length === 1 && receiver.requests);

    expect(request!.path).toBe('/hook');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers.authorization).toBe(`Basic ${Buffer.from('hook:s3cret').toString('base64')}`);
    const header = request!.headers['fpjs-event-signature'] as string;
    expect(isValidWebhookSignature({ header, data: request!.body, secret: webhook.signing_key! })).toBe(true);
    expect(isValidWebhookSignature({ header, data: request!.body, secret: 'wrong' })).toBe(false);
    // The very JSON the Server API serves for this event.
    expect(request!.body).toBe(await getEventPayload(t.service.ctx.store, t.workspaceId, eventId));
    const [delivery] = await waitFor(async () => {
      const rows = await listDeliveries(t.service.ctx.store, webhook.id);
      return rows[0]?.status === 'delivered' && rows;
    });
    expect(delivery).toMatchObject({ event_id: eventId, attempts: 1 });
  });

  it('sends an event as soon as it is stored, without waiting for the worker to poll the outbox', async () => {
    // A worker that would first look at the outbox in 10 minutes.
    const slowPolling = await startServiceFor(receiver, { config: { webhookTiming: { ...FAST_TIMING, pollMs: 600_000 } } });
    try {
      const webhook = await createVerifiedWebhook(slowPolling.service.ctx.store, { workspaceId: slowPolling.workspaceId, environmentId: null, url: receiver.url });
      const response = await postIdentify(slowPolling.url, identifyRequest(slowPolling.keys.publicKey));
      expect(response.status).toBe(200);
      const [request] = await waitFor(() => receiver.requests.length === 1 && receiver.requests);
      expect(JSON.parse(request!.body).event_id).toBe(response.json.event_id);
      expect(request!.body).toBe(await getEventPayload(slowPolling.service.ctx.store, slowPolling.workspaceId, response.json.event_id as string));
      const [delivery] = await waitFor(async () => {
        const rows = await listDeliveries(slowPolling.service.ctx.store, webhook.id);
        return rows[0]?.status === 'delivered' && rows;
      });
      expect(delivery).toMatchObject({ attempts: 1, leased_until: null, lease_owner: null });
      expect((await listAttempts(slowPolling.service.ctx.store, webhook.id)).map((a) => a.http_status)).toEqual([200]);
    } finally {
      await slowPolling.close();
    }
  });

  it('leaves deliveries beyond the hand-off limit in the outbox, for a claim', async () => {
    // One handed-off send at a time, and a worker that would first poll in 10 minutes.
    const limited = await startServiceFor(receiver, { config: { webhookTiming: { ...FAST_TIMING, pollMs: 600_000, handOffLimit: 1 } } });
    const held: ServerResponse[] = [];
    receiver.answer = (_req, res) => held.push(res); // not answered yet
    try {
      const store = limited.service.ctx.store;
      const webhook = await createVerifiedWebhook(store, { workspaceId: limited.workspaceId, environmentId: null, url: receiver.url });
      const first = await postIdentify(limited.url, identifyRequest(limited.keys.publicKey));
      await waitFor(() => receiver.requests.length === 1);
      const second = await postIdentify(limited.url, identifyRequest(limited.keys.publicKey));
      const byEvent = new Map((await listDeliveries(store, webhook.id)).map((d) => [d.event_id, d]));
      expect(byEvent.get(first.json.event_id as string)).toMatchObject({ status: 'pending', attempts: 0 });
      expect(byEvent.get(first.json.event_id as string)!.leased_until).not.toBeNull();
      // The second waits for a worker's claim, unleased.
      expect(byEvent.get(second.json.event_id as string)).toMatchObject({ status: 'pending', attempts: 0, leased_until: null, lease_owner: null });
      held[0]!.writeHead(200).end();
      receiver.answer = (_req, res) => res.writeHead(200).end();
      await waitFor(async () => (await listDeliveries(store, webhook.id)).some((d) => d.status === 'delivered'));
      await limited.service.webhooks.runOnce();
      expect((await listDeliveries(store, webhook.id)).map((d) => d.status)).toEqual(['delivered', 'delivered']);
      expect(receiver.requests.map((r) => JSON.parse(r.body).event_id)).toEqual([first.json.event_id, second.json.event_id]);
    } finally {
      for (const res of held) if (!res.writableEnded) res.destroy();
      await limited.close();
    }
  });

  it('leaves deliveries in the outbox once the worker stopped', async () => {
    const webhook = await createVerifiedWebhook(t.service.ctx.store, { workspaceId: t.workspaceId, environmentId: null, url: receiver.url });
    await t.service.webhooks.stop();
    const eventId = await identify();
    const [queued] = await listDeliveries(t.service.ctx.store, webhook.id);
    expect(queued).toMatchObject({ event_id: eventId, status: 'pending', attempts: 0, leased_until: null });
    expect(receiver.requests).toHaveLength(0);
  });

  it('starts sending once a webhook exists, also when another process created it', async () => {
    // No webhook yet: the worker's passes skip the claim (a cached "no webhook at all").
    expect(await t.service.webhooks.runOnce()).toBe(0);
    // Created through another connection to the same database, as the CLI or another process would.
    const other = openStore({ dataDir: t.service.ctx.config.dataDir });
    try {
      await createVerifiedWebhook(other, { workspaceId: t.workspaceId, environmentId: null, url: receiver.url });
    } finally {
      await other.destroy();
    }
    const eventId = await identify();
    const [request] = await waitFor(() => receiver.requests.length === 1 && receiver.requests);
    expect(JSON.parse(request!.body).event_id).toBe(eventId);
  });

  it('retries a failing receiver until it accepts, then sends nothing more', async () => {
    receiver.answer = (_req, res, index) => {
      res.writeHead(index < 2 ? 503 : 200).end(index < 2 ? 'busy' : 'ok');
    };
    const webhook = await createVerifiedWebhook(t.service.ctx.store, { workspaceId: t.workspaceId, environmentId: null, url: receiver.url });
    const eventId = await identify();
    await waitFor(async () => (await listDeliveries(t.service.ctx.store, webhook.id))[0]?.status === 'delivered');
    // More passes find nothing due: the accepted event is not sent again.
    await t.service.webhooks.runOnce();
    await t.service.webhooks.runOnce();

    expect(receiver.requests).toHaveLength(3);
    expect(new Set(receiver.requests.map((r) => r.body)).size).toBe(1);
    expect(JSON.parse(receiver.requests[2]!.body).event_id).toBe(eventId);
    const attempts = await listAttempts(t.service.ctx.store, webhook.id);
    expect(attempts.map((a) => a.http_status).reverse()).toEqual([503, 503, 200]);
    expect(attempts[2]!.error).toBe('HTTP 503: busy');
    expect(attempts[0]!.error).toBeNull();
  });

  it('sends legacy webhooks the flat v3 visit', async () => {
    await createVerifiedWebhook(t.service.ctx.store, { workspaceId: t.workspaceId, environmentId: t.environmentId, url: receiver.url, legacy: true });
    const eventId = await identify();
    const [request] = await waitFor(() => receiver.requests.length === 1 && receiver.requests);
    const visit = JSON.parse(request!.body);
    expect(visit.requestId).toBe(eventId);
    expect(typeof visit.visitorId).toBe('string');
    expect(visit.url).toBe('https://shop.example.com/checkout');
    expect(visit.event_id).toBeUndefined();
  });

  it('queues nothing for unverified or disabled webhooks, nor for other environments', async () => {
    const store = t.service.ctx.store;
    await createWebhook(store, { workspaceId: t.workspaceId, environmentId: t.environmentId, url: receiver.url, now: Date.now() });
    const disabled = await createVerifiedWebhook(store, { workspaceId: t.workspaceId, environmentId: null, url: receiver.url });
    await updateWebhook(store, t.workspaceId, disabled.id, { status: 'disabled' }, Date.now());
    const other = await createEnvironment(store, { workspaceId: t.workspaceId, name: 'Other', now: Date.now() });
    await createVerifiedWebhook(store, { workspaceId: t.workspaceId, environmentId: other.id, url: receiver.url });
    await identify();
    const rows = await kyselyOf(store).selectFrom('webhook_deliveries').selectAll().execute();
    expect(rows).toEqual([]);
  });

  it('resends a delivered event on request', async () => {
    const webhook = await createVerifiedWebhook(t.service.ctx.store, { workspaceId: t.workspaceId, environmentId: t.environmentId, url: receiver.url });
    await identify();
    const [delivery] = await waitFor(async () => {
      const rows = await listDeliveries(t.service.ctx.store, webhook.id);
      return rows[0]?.status === 'delivered' && rows;
    });
    expect(await resendDelivery(t.service.ctx.store, webhook.id, delivery!.id, Date.now())).toMatchObject({ status: 'pending' });
    await waitFor(() => receiver.requests.length === 2);
    expect(receiver.requests[1]!.body).toBe(receiver.requests[0]!.body);
  });
});
