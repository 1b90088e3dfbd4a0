/** Retention: events older than the configured period are purged, in batches. */
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Small batches keep each write transaction short, so ingestion is never blocked for long. */
const PURGE_BATCH = 5000;

/** Deletes events with a timestamp before `now - retentionDays`; returns how many. */
export async function purgeExpiredEvents(db: Kysely<Database>, now: number, retentionDays: number): Promise<number> {
  const cutoff = now - retentionDays * DAY_MS;
  let total = 0;
  for (;;) {
    const batch = db.selectFrom('events').select('event_id').where('timestamp', '<', cutoff).limit(PURGE_BATCH);
    const result = await db.deleteFrom('events').where('event_id', 'in', batch).executeTakeFirst();
    const n = Number(result.numDeletedRows);
    total += n;
    if (n < PURGE_BATCH) return total;
  }
}
