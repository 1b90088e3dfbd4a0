/**
 * Visitor deletion: the request schedules it (workspace opt-in, 30 per hour and 500 per day
 * per workspace), the background job executes it: events of the last 10 days and the
 * visitor's identity go; older events stay until retention purges them.
 */
import type { Kysely } from 'kysely';
import { deleteVisitorIdentity } from '../identification/identifier.js';
import { newId } from '../store/ids.js';
import type { Engine } from '../store/database.js';
import type { Database } from '../store/schema.js';
import { RateLimited } from '../http/errors.js';
import { ApiError, ERRORS } from './errors.js';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

export const DELETION_LIMITS = [
  { windowMs: HOUR_MS, max: 30, name: 'hour' },
  { windowMs: DAY_MS, max: 500, name: 'day' },
] as const;

/** Events younger than this (at request time) are deleted with the visitor. */
export const DELETION_EVENT_WINDOW_MS = 10 * DAY_MS;

/** Throws 429 with the seconds until the oldest request leaves the window that is full. */
function checkLimits(requestTimes: number[], now: number): void {
  for (const limit of DELETION_LIMITS) {
    const inWindow = requestTimes.filter((t) => t > now - limit.windowMs);
    if (inWindow.length >= limit.max) {
      // requestTimes are ascending: the oldest in the window frees the first slot.
      const freeAt = inWindow[inWindow.length - limit.max]! + limit.windowMs;
      const retryAfter = Math.max(1, Math.ceil((freeAt - now) / 1000));
      throw new RateLimited(retryAfter, `too many requests: at most ${limit.max} visitor deletions per ${limit.name}`);
    }
  }
}

async function visitorExists(db: Kysely<Database>, workspaceId: string, visitorId: string): Promise<boolean> {
  const event = await db
    .selectFrom('events')
    .select('event_id')
    .where('workspace_id', '=', workspaceId)
    .where('visitor_id', '=', visitorId)
    .limit(1)
    .executeTakeFirst();
  if (event !== undefined) return true;
  const identity = await db
    .selectFrom('visitors')
    .select('visitor_id')
    .where('workspace_id', '=', workspaceId)
    .where('visitor_id', '=', visitorId)
    .executeTakeFirst();
  return identity !== undefined;
}

export async function scheduleVisitorDeletion(
  db: Kysely<Database>,
  engine: Engine,
  opts: { workspaceId: string; visitorId: string; now: number },
): Promise<void> {
  // Check and insert as one step per workspace, so concurrent requests cannot all pass the
  // limit check: PostgreSQL locks the workspace row; SQLite's single connection runs
  // transactions one at a time anyway.
  await db.transaction().execute(async (trx) => {
    const workspace = await trx
      .selectFrom('workspaces')
      .select('deletion_enabled')
      .where('id', '=', opts.workspaceId)
      .$if(engine === 'postgres', (q) => q.forUpdate())
      .executeTakeFirst();
    if (workspace === undefined || workspace.deletion_enabled !== 1) throw new ApiError(ERRORS.featureNotEnabled);
    if (!(await visitorExists(trx, opts.workspaceId, opts.visitorId))) throw new ApiError(ERRORS.visitorNotFound);
    const recent = await trx
      .selectFrom('visitor_deletions')
      .select('requested_at')
      .where('workspace_id', '=', opts.workspaceId)
      .where('requested_at', '>', opts.now - DAY_MS)
      .orderBy('requested_at', 'asc')
      .execute();
    checkLimits(
      recent.map((r) => r.requested_at),
      opts.now,
    );
    await trx
      .insertInto('visitor_deletions')
      .values({
        id: newId('vd'),
        workspace_id: opts.workspaceId,
        visitor_id: opts.visitorId,
        requested_at: opts.now,
        status: 'scheduled',
        completed_at: null,
        deleted_events: null,
      })
      .execute();
  });
}

/** Executes the scheduled deletions (oldest first, at most `batch`); returns how many ran. */
export async function executeScheduledDeletions(db: Kysely<Database>, now: number, batch = 100): Promise<number> {
  const pending = await db
    .selectFrom('visitor_deletions')
    .selectAll()
    .where('status', '=', 'scheduled')
    .where('requested_at', '<=', now)
    .orderBy('requested_at', 'asc')
    .limit(batch)
    .execute();
  // Each step is idempotent, so a pass interrupted midway is simply redone by the next one.
  // (No wrapping transaction: deleteVisitorIdentity runs its own.)
  for (const deletion of pending) {
    const deleted = await db
      .deleteFrom('events')
      .where('workspace_id', '=', deletion.workspace_id)
      .where('visitor_id', '=', deletion.visitor_id)
      .where('timestamp', '>=', deletion.requested_at - DELETION_EVENT_WINDOW_MS)
      .executeTakeFirst();
    await deleteVisitorIdentity(db, deletion.workspace_id, deletion.visitor_id);
    await db
      .updateTable('visitor_deletions')
      .set({ status: 'done', completed_at: now, deleted_events: Number(deleted.numDeletedRows) })
      .where('id', '=', deletion.id)
      .execute();
  }
  return pending.length;
}

/** Finished deletion records older than the day window no longer count for anything. */
export async function pruneDeletionRecords(db: Kysely<Database>, now: number): Promise<void> {
  await db
    .deleteFrom('visitor_deletions')
    .where('status', '=', 'done')
    .where('requested_at', '<', now - 2 * DAY_MS)
    .execute();
}
