/**
 * The webhook operations of the Management API over HTTP (raw, for statuses and bodies) and
 * through `ManagementApiClient`: create, list, get, update, delete, verification against a
 * real HTTPS receiver, the attempt log and resending.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementApiClient } from '../../src/server/index.js';
import { identifyRequest, postIdentify } from '../helpers/identify-request.js';
import type { TestService } from '../helpers/test-service.js';
import { liftManagementRateLimit, mgmt } from '../management-api/helpers.js';
import { startServiceFor } from './helpers.js';
import { startReceiver, waitFor, type Receiver } from './receiver.js';

let receiver: Receiver;
let t: TestService;
let client: ManagementApiClient;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startServiceFor(receiver);
  await liftManagementRateLimit(t);
  client = new ManagementApiClient({ apiKey: t.keys.managementKey, baseUrl: t.url });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

describe('Management API: webhooks', () => {
  it('creates a webhook: the signing key only in the create answer, https only', async () => {
    const created = await mgmt(t, 'POST', '/webhooks', { body: { url: receiver.url, description: 'Orders', environment: t.environmentId } });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      url: receiver.url,
      description: 'Orders',
      status: 'enabled',
      verified: false,
      legacy: false,
      environment: t.environmentId,
      basic_auth: {},
      last_disabled_at: null,
    });
    expect(created.body.data.signing_key).toMatch(/^\w{40}$/);
    expect(created.body.environment.id).toBe(t.environmentId);
    const fetched = await mgmt(t, 'GET', `/webhooks/${created.body.data.id}`);
    expect(fetched.body.data.signing_key).toBeUndefined();

    const global = await mgmt(t, 'POST', '/webhooks', { body: { url: receiver.url, environment: null } });
    expect(global.body).toMatchObject({ data: { environment: null }, environment: null });

    const plain = await mgmt(t, 'POST', '/webhooks', { body: { url: 'http://example.com/hook' } });
    expect(plain.status).toBe(422);
    expect(plain.body.error.violations).toEqual([{ property: 'url', message: 'must be an https:// URL' }]);
    expect((await mgmt(t, 'POST', '/webhooks', { body: { url: receiver.url, environment: 'ae_nope' } })).status).toBe(404);
    expect((await mgmt(t, 'POST', '/webhooks', { body: {} })).status).toBe(422);
  });

  it('updates status with its timestamps, URL, description and basic auth; deletes', async () => {
    const webhook = await client.createWebhook({ url: receiver.url });
    const disabled = await client.updateWebhook(webhook.id, { status: 'disabled', description: 'Paused', basic_auth: { username: 'u', password: 'p' } });
    expect(disabled).toMatchObject({ status: 'disabled', description: 'Paused', basic_auth: { username: 'u' } });
    expect(disabled.last_disabled_at).not.toBeNull();
    const enabled = await client.updateWebhook(webhook.id, { status: 'enabled', basic_auth: null });
    expect(enabled.basic_auth).toEqual({});
    expect(Date.parse(enabled.last_enabled_at!)).toBeGreaterThanOrEqual(Date.parse(webhook.last_enabled_at!));
    expect((await mgmt(t, 'PATCH', `/webhooks/${webhook.id}`, { body: { url: 'ftp://x' } })).status).toBe(422);

    const listed = await client.listWebhooks({ status: 'enabled', limit: 101 });
    expect(listed.data.map((w) => w.id)).toContain(webhook.id);
    await client.deleteWebhook(webhook.id);
    expect((await mgmt(t, 'GET', `/webhooks/${webhook.id}`)).status).toBe(404);
  });

  it('verification: only a 2xx answer verifies; then events are sent, logged and can be resent', async () => {
    const webhook = await client.createWebhook({ url: receiver.url, environment: t.environmentId });
    receiver.answer = (_req, res) => {
      res.writeHead(500).end('not yet');
    };
    const refused = await client.verifyWebhook(webhook.id);
    expect(refused).toMatchObject({ verified: false, verification: { http_status: 500, error: 'HTTP 500: not yet' } });
    expect(JSON.parse(receiver.requests.at(-1)!.body)).toMatchObject({ type: 'webhook_verification', webhook_id: webhook.id });
    // Unverified: an event queues nothing.
    await postIdentify(t.url, identifyRequest(t.keys.publicKey));

    receiver.answer = (_req, res) => {
      res.writeHead(204).end();
    };
    expect(await client.verifyWebhook(webhook.id)).toMatchObject({ verified: true, verification: { http_status: 204, error: null } });
    const before = receiver.requests.length;
    const event = await postIdentify(t.url, identifyRequest(t.keys.publicKey));
    await waitFor(() => receiver.requests.length === before + 1);
    const [attempt] = await waitFor(async () => {
      const page = await client.listWebhookAttempts(webhook.id);
      return page.data.length === 1 && page.data;
    });
    expect(attempt).toMatchObject({ event_id: event.json.event_id, http_status: 204, error: null });

    const resent = await client.resendWebhookDelivery(webhook.id, attempt!.delivery_id);
    expect(resent).toMatchObject({ id: attempt!.delivery_id, status: 'pending', event_id: event.json.event_id });
    await waitFor(() => receiver.requests.length === before + 2);
    expect((await mgmt(t, 'POST', `/webhooks/${webhook.id}/deliveries/whd_nope/resend`)).status).toBe(404);
  });
});
