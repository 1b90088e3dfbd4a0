/** Shared setup of the webhook tests: a service that may reach the test receiver, and verified webhooks. */
import type { ServiceConfig } from '../../src/service/index.js';
import type { Store } from '../../src/service/store/index.js';
import type { WebhooksTable } from '../../src/service/store/schema.js';
import { createWebhook, updateWebhook } from '../../src/service/store/webhooks.js';
import { startTestService, type Engine, type TestService } from '../helpers/test-service.js';
import type { Receiver } from './receiver.js';

/** Retries within milliseconds, so tests observe several attempts without waiting. */
export const FAST_TIMING = { backoffBaseMs: 20, backoffCapMs: 50, pollMs: 20 };

export function startServiceFor(receiver: Receiver, opts: { engine?: Engine; config?: Partial<ServiceConfig> } = {}): Promise<TestService> {
  return startTestService({
    engine: opts.engine,
    config: { allowPrivateWebhookTargets: true, webhookCaFile: receiver.caFile, webhookTiming: FAST_TIMING, ...opts.config },
  });
}

/** A webhook that receives events at once (created, then marked verified as verification would). */
export async function createVerifiedWebhook(
  store: Store,
  opts: Omit<Parameters<typeof createWebhook>[1], 'now'>,
): Promise<WebhooksTable> {
  const created = await createWebhook(store, { ...opts, now: Date.now() });
  await updateWebhook(store, created.workspace_id, created.id, { verified: true }, Date.now());
  return { ...created, verified: 1 };
}
