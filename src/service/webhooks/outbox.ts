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
import type { WebhookDeliveriesTable } from '../store/schema.js';
import type { ClaimedDelivery, DeliveryLease, NewDelivery } from '../store/webhook-deliveries.js';
import { listActiveWebhooksCached, type ActiveWebhook } from '../store/webhooks.js';

/** A delivery to queue with the webhook it goes to. */
export interface QueuedDelivery extends NewDelivery {
  webhook: ActiveWebhook;
}

export async function deliveriesForEvent(
  store: Store,
  event: V4Event,
  ids: { workspaceId: string; environmentId: string },
): Promise<QueuedDelivery[]> {
  const webhooks = await listActiveWebhooksCached(store, ids.workspaceId, ids.environmentId);
  if (webhooks.length === 0) return [];
  let v3: string | undefined;
  return webhooks.map((webhook) =>
    webhook.legacy
      ? { webhook, webhookId: webhook.id, eventId: event.event_id, payload: (v3 ??= JSON.stringify(toV3WebhookVisit(event))) }
      : { webhook, webhookId: webhook.id, eventId: event.event_id },
  );
}

/**
 * Sending deliveries from the process that queued them, as soon as their event is committed,
 * rather than after a worker's next claim (webhooks/worker.ts): no wait for the poll, and no
 * claim nor read of the event back from the database. The deliveries are queued leased to this
 * process's worker, so another worker takes them only if it dies before settling them.
 */
export interface DeliveryHandOff {
  /**
   * A lease for the deliveries of an event about to be stored, when this process can send them
   * at once; undefined when it cannot (its worker stopped, or too many sends in flight), and the
   * deliveries wait in the outbox for a worker's claim.
   */
  lease(now: number): DeliveryLease | undefined;
  /** Sends deliveries queued under a lease of `lease()`, once their event is committed. */
  send(deliveries: readonly ClaimedDelivery[]): void;
}

/**
 * The deliveries as a worker sends them: their rows as written (store/events.ts `insertEvent`,
 * in the order queued) with their webhook, and the body: a legacy webhook's own, else the
 * event's stored payload.
 */
export function queuedForSending(queued: readonly QueuedDelivery[], rows: readonly WebhookDeliveriesTable[], eventPayload: string): ClaimedDelivery[] {
  return rows.map((row, i) => {
    const { webhook, payload } = queued[i]!;
    return { delivery: { id: row.id, event_id: row.event_id, attempts: row.attempts, give_up_at: row.give_up_at, payload: payload ?? eventPayload }, webhook };
  });
}
