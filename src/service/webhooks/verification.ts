/**
 * Verifying a webhook: one test delivery, sent like any other (same sender, signature and
 * basic auth), synchronously. The webhook is marked verified only when its endpoint answers
 * 2xx; until then it receives no events. The test body is not an event: receivers recognise it
 * by `type`.
 */
import type { Store } from '../store/index.js';
import type { WebhooksTable } from '../store/schema.js';
import { updateWebhook } from '../store/webhooks.js';
import type { SendResult, Sender } from './sender.js';
import { deliveryHeaders } from './worker.js';

export function verificationBody(webhook: Pick<WebhooksTable, 'id'>, now: number): string {
  return JSON.stringify({ type: 'webhook_verification', webhook_id: webhook.id, timestamp: now });
}

export async function verifyWebhook(
  store: Store,
  sender: Sender,
  webhook: WebhooksTable,
  now: number,
): Promise<{ webhook: WebhooksTable; result: SendResult }> {
  const body = verificationBody(webhook, now);
  const result = await sender(webhook.url, body, deliveryHeaders(webhook), webhook.signing_key);
  if (!result.ok) return { webhook, result };
  const updated = await updateWebhook(store, webhook.workspace_id, webhook.id, { verified: true }, now);
  return { webhook: updated ?? webhook, result };
}
