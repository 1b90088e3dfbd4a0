/**
 * The deliveries an identification event queues: one per enabled, verified webhook of its
 * environment and of its workspace (global webhooks). The body is fixed now, so every attempt
 * and a later resend send the same bytes: the v4 event as stored (what the Server API returns),
 * or for legacy webhooks the flat v3 visit. A v4 delivery stores no body of its own: it sends
 * its event's stored payload, which is that JSON (an update of the event first copies the old
 * payload to its deliveries, store/webhook-deliveries.ts `keepDeliveryBodies`).
 */
import { toV3WebhookVisit } from '../../events/v4-to-v3.js';
import type { V4Event } from '../../events/v4-event.js';
import type { Store } from '../store/index.js';
import type { NewDelivery } from '../store/webhook-deliveries.js';
import { listActiveWebhooksCached } from '../store/webhooks.js';

export async function deliveriesForEvent(
  store: Store,
  event: V4Event,
  ids: { workspaceId: string; environmentId: string },
): Promise<NewDelivery[]> {
  const webhooks = await listActiveWebhooksCached(store, ids.workspaceId, ids.environmentId);
  if (webhooks.length === 0) return [];
  let v3: string | undefined;
  return webhooks.map((webhook) =>
    webhook.legacy
      ? { webhookId: webhook.id, eventId: event.event_id, payload: (v3 ??= JSON.stringify(toV3WebhookVisit(event))) }
      : { webhookId: webhook.id, eventId: event.event_id },
  );
}
