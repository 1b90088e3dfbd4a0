/**
 * SSRF protection of webhook deliveries, with the default policy: loopback, private and
 * link-local targets are refused after DNS resolution, before any connection, and redirects
 * are not followed. The service trusts the receiver's certificate, so only the policy (not
 * TLS) can stop these deliveries: the receiver must see nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kyselyOf } from '../../src/service/store/index.js';
import { listAttempts } from '../../src/service/store/webhook-deliveries.js';
import { identifyRequest, postIdentify } from '../helpers/identify-request.js';
import type { TestService } from '../helpers/test-service.js';
import { createVerifiedWebhook, startServiceFor } from './helpers.js';
import { startReceiver, waitFor, type Receiver } from './receiver.js';

let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

/** Sends one event to a webhook at `url`; returns the first attempt's error. */
async function firstAttemptError(t: TestService, url: string): Promise<string | null> {
  const webhook = await createVerifiedWebhook(t.service.ctx.store, { workspaceId: t.workspaceId, environmentId: t.environmentId, url });
  expect((await postIdentify(t.url, identifyRequest(t.keys.publicKey))).status).toBe(200);
  const [attempt] = await waitFor(async () => {
    const attempts = await listAttempts(t.service.ctx.store, webhook.id);
    return attempts.length > 0 && attempts;
  });
  await kyselyOf(t.service.ctx.store).deleteFrom('webhooks').where('id', '=', webhook.id).execute();
  return attempt!.error;
}

describe('webhook targets, default policy', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startServiceFor(receiver, { config: { allowPrivateWebhookTargets: false } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each([
    ['loopback', () => receiver.url, /127\.0\.0\.1 is in a loopback range/],
    ['a private address', () => 'https://10.0.0.1/hook', /10\.0\.0\.1 is in a private range/],
    ['the metadata address', () => 'https://169.254.169.254/latest/meta-data', /169\.254\.169\.254 is in a linkLocal range/],
    ['IPv6 loopback', () => `https://[::1]:${receiver.port}/hook`, /::1 is in a loopback range/],
    ['a host name resolving to loopback', () => `https://localhost:${receiver.port}/hook`, /localhost resolves to .* loopback range/],
  ])('refuses %s without connecting', async (_name, url, reason) => {
    expect(await firstAttemptError(t, url())).toMatch(reason);
    expect(receiver.requests).toHaveLength(0);
  });
});

describe('redirects', () => {
  let t: TestService;
  let redirecting: Receiver;
  beforeAll(async () => {
    // The receiver answers with a redirect to loopback; a sender that followed it would reach `receiver`.
    redirecting = await startReceiver((_req, res) => {
      res.writeHead(302, { Location: receiver.url }).end();
    });
    t = await startServiceFor(redirecting);
  });
  afterAll(async () => {
    await t?.close();
    await redirecting?.close();
  });

  it('are not followed: a 3xx is a failed attempt', async () => {
    expect(await firstAttemptError(t, redirecting.url)).toBe('HTTP 302: redirects are not followed');
    expect(redirecting.requests.length).toBeGreaterThan(0);
    expect(receiver.requests).toHaveLength(0);
  });
});
