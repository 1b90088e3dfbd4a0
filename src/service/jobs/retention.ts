/** Retention: events older than the configured period are purged, in batches. */
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Small batches keep each write transaction short, so ingestion is never blocked for long. */
const PURGE_BATCH = 5000;

/**
 * Deletes events with a timestamp before `now - retentionDays`; returns how many. Workspace
 * by workspace, so each batch is a range of the (workspace, time) index (events have no
 * index on time alone: one index fewer to update on every insert).
 */
export async function purgeExpiredEvents(db: Kysely<Database>, now: number, retentionDays: number): Promise<number> {
  const cutoff = now - retentionDays * DAY_MS;
  const workspaces = await db.selectFrom('workspaces').select('id').execute();
  let total = 0;
  for (const { id } of workspaces) {
    for (;;) {
      const batch = db
        .selectFrom('events')
        .select('event_id')
        .where('workspace_id', '=', id)
        .where('timestamp', '<', cutoff)
        .limit(PURGE_BATCH);
      const result = await db.deleteFrom('events').where('event_id', 'in', batch).executeTakeFirst();
      const n = Number(result.numDeletedRows);
      total += n;
      if (n < PURGE_BATCH) break;
    }
  }
  return total;
}
