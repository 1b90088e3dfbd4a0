/**
 * Retention: events older than the configured period are purged, in batches (store/events.ts),
 * with their webhook deliveries. A workspace's `data_retention_days` setting (Management API)
 * overrides the service's period. Settled webhook deliveries (delivered or failed) and their
 * attempt log are kept for a shorter window of their own (store/webhook-deliveries.ts).
 */
import type { Store } from '../store/index.js';
import { purgeEventsBefore } from '../store/events.js';
import { purgeSettledDeliveries } from '../store/webhook-deliveries.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes events with a timestamp before `now - retention days`, and their webhook deliveries
 * of any status; returns how many of each.
 */
export async function purgeExpiredEvents(store: Store, now: number, retentionDays: number): Promise<{ events: number; deliveries: number }> {
  return purgeEventsBefore(store, (workspace) => now - (workspace.data_retention_days ?? retentionDays) * DAY_MS);
}

/**
 * Deletes delivered and failed webhook deliveries whose last attempt is more than `days` old,
 * with their attempts; returns how many deliveries. Pending ones stay (they settle within their
 * 24-hour window, or go with their event).
 */
export async function purgeSettledWebhookDeliveries(store: Store, now: number, days: number): Promise<number> {
  return purgeSettledDeliveries(store, now - days * DAY_MS);
}
