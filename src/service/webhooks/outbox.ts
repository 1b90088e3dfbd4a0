/**
 * The deliveries an identification event queues: one per enabled, verified webhook of its
 * environment and of its workspace (global webhooks). The body is fixed now, so every attempt
 * and a later resend send the same bytes: the v4 event as stored (what the Server API returns),
 * or for legacy webhooks the flat v3 visit.
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
  /** The event's stored payload (store/events.ts `eventPayload`): the body of v4 deliveries. */
  eventJson: string,
): Promise<NewDelivery[]> {
  const webhooks = await listActiveWebhooksCached(store, ids.workspaceId, ids.environmentId);
  if (webhooks.length === 0) return [];
  let v3: string | undefined;
  return webhooks.map((webhook) => ({
    webhookId: webhook.id,
    eventId: event.event_id,
    payload: webhook.legacy ? (v3 ??= JSON.stringify(toV3WebhookVisit(event))) : eventJson,
  }));
}
