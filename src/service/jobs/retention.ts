/** Retention: events older than the configured period are purged, in batches (store/events.ts). */
import type { Store } from '../store/index.js';
import { purgeEventsBefore } from '../store/events.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Deletes events with a timestamp before `now - retentionDays`; returns how many. */
export async function purgeExpiredEvents(store: Store, now: number, retentionDays: number): Promise<number> {
  return purgeEventsBefore(store, now - retentionDays * DAY_MS);
}
