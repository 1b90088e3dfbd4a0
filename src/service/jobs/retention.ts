/**
 * Retention: events older than the configured period are purged, in batches (store/events.ts).
 * A workspace's `data_retention_days` setting (Management API) overrides the service's period.
 */
import type { Store } from '../store/index.js';
import { purgeEventsBefore } from '../store/events.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Deletes events with a timestamp before `now - retention days`; returns how many. */
export async function purgeExpiredEvents(store: Store, now: number, retentionDays: number): Promise<number> {
  return purgeEventsBefore(store, (workspace) => now - (workspace.data_retention_days ?? retentionDays) * DAY_MS);
}
