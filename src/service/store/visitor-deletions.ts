/**
 * Visitor-deletion requests (Server API): scheduled by a request, executed by the background
 * job, counted against the workspace's deletion limits.
 */
import { newId } from './ids.js';
import { internalsOf, type Store } from './handle.js';
import type { VisitorDeletionsTable } from './schema.js';

/**
 * The workspace's deletion opt-in, undefined when there is no such workspace. On PostgreSQL
 * the row stays locked until the transaction ends, so concurrent requests of one workspace
 * check their limits one after another (SQLite's single connection serialises them anyway).
 */
export async function lockWorkspaceForDeletion(trx: Store, workspaceId: string): Promise<{ deletionEnabled: boolean } | undefined> {
  const row = await internalsOf(trx)
    .db.selectFrom('workspaces')
    .select('deletion_enabled')
    .where('id', '=', workspaceId)
    .$if(trx.engine === 'postgres', (q) => q.forUpdate())
    .executeTakeFirst();
  return row && { deletionEnabled: row.deletion_enabled === 1 };
}

/** When the workspace's deletion requests since `since` were made, oldest first. */
export async function listDeletionRequestTimes(store: Store, workspaceId: string, since: number): Promise<number[]> {
  const rows = await internalsOf(store)
    .db.selectFrom('visitor_deletions')
    .select('requested_at')
    .where('workspace_id', '=', workspaceId)
    .where('requested_at', '>', since)
    .orderBy('requested_at', 'asc')
    .execute();
  return rows.map((r) => r.requested_at);
}

export async function insertVisitorDeletion(store: Store, d: { workspaceId: string; visitorId: string; now: number }): Promise<void> {
  await internalsOf(store)
    .db.insertInto('visitor_deletions')
    .values({
      id: newId('vd'),
      workspace_id: d.workspaceId,
      visitor_id: d.visitorId,
      requested_at: d.now,
      status: 'scheduled',
      completed_at: null,
      deleted_events: null,
    })
    .execute();
}

/** Scheduled deletions due at `now`, oldest first, at most `batch`. */
export async function listScheduledDeletions(store: Store, now: number, batch: number): Promise<VisitorDeletionsTable[]> {
  return internalsOf(store)
    .db.selectFrom('visitor_deletions')
    .selectAll()
    .where('status', '=', 'scheduled')
    .where('requested_at', '<=', now)
    .orderBy('requested_at', 'asc')
    .limit(batch)
    .execute();
}

/** Deletes the visitor's events from `since` on; returns how many. */
export async function deleteVisitorEventsSince(store: Store, d: { workspaceId: string; visitorId: string; since: number }): Promise<number> {
  const result = await internalsOf(store)
    .db.deleteFrom('events')
    .where('workspace_id', '=', d.workspaceId)
    .where('visitor_id', '=', d.visitorId)
    .where('timestamp', '>=', d.since)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function markDeletionDone(store: Store, id: string, now: number, deletedEvents: number): Promise<void> {
  await internalsOf(store)
    .db.updateTable('visitor_deletions')
    .set({ status: 'done', completed_at: now, deleted_events: deletedEvents })
    .where('id', '=', id)
    .execute();
}

/** Deletes the finished deletion records requested before `before`. */
export async function pruneDoneDeletions(store: Store, before: number): Promise<void> {
  await internalsOf(store).db.deleteFrom('visitor_deletions').where('status', '=', 'done').where('requested_at', '<', before).execute();
}
