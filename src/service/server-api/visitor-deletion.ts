/**
 * Visitor deletion: the request schedules it (workspace opt-in, 30 per hour and 500 per day
 * per workspace), the background job executes it: events of the last 10 days, the webhook
 * deliveries of all the visitor's events and the visitor's identity go; older events stay until
 * retention purges them. The IDs relinked to the visitor (identification/relink.ts) are part of
 * it: their events of that window and their deliveries go too.
 */
import type { Store } from '../store/index.js';
import {
  deleteVisitorEventsSince,
  insertVisitorDeletion,
  listDeletionRequestTimes,
  listScheduledDeletions,
  lockWorkspaceForDeletion,
  markDeletionDone,
  pruneDoneDeletions,
} from '../store/visitor-deletions.js';
import { visitorEnvironmentIds } from '../store/events.js';
import { deleteDeliveriesOfVisitor } from '../store/webhook-deliveries.js';
import { listAbsorbedVisitorIds } from '../store/visitor-links.js';
import { deleteVisitor, visitorExists } from '../store/visitors.js';
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

/**
 * `environmentId`: the caller's key is scoped to that environment. Deleting a visitor deletes
 * its events of every environment, so such a key may delete only a visitor seen in its
 * environment alone; any other visitor is not found for it.
 */
export async function scheduleVisitorDeletion(
  store: Store,
  opts: { workspaceId: string; environmentId: string | null; visitorId: string; now: number },
): Promise<void> {
  // Check and insert as one step per workspace, so concurrent requests cannot all pass the
  // limit check (the workspace row is locked for the transaction).
  await store.transaction(async (trx) => {
    const workspace = await lockWorkspaceForDeletion(trx, opts.workspaceId);
    if (workspace === undefined || !workspace.deletionEnabled) throw new ApiError(ERRORS.featureNotEnabled);
    if (!(await visitorExists(trx, opts.workspaceId, opts.visitorId))) throw new ApiError(ERRORS.visitorNotFound);
    if (opts.environmentId !== null) {
      const absorbed = await listAbsorbedVisitorIds(trx, opts.workspaceId, opts.visitorId);
      const environments = await visitorEnvironmentIds(trx, opts.workspaceId, opts.visitorId, absorbed);
      if (environments.length === 0 || environments.some((e) => e !== opts.environmentId)) throw new ApiError(ERRORS.visitorNotFound);
    }
    checkLimits(await listDeletionRequestTimes(trx, opts.workspaceId, opts.now - DAY_MS), opts.now);
    await insertVisitorDeletion(trx, { workspaceId: opts.workspaceId, visitorId: opts.visitorId, now: opts.now });
  });
}

/**
 * Executes the scheduled deletions (oldest first, at most `batch`); returns how many ran. Each
 * is one transaction: the webhook deliveries of the visitor's events (any status, with their
 * attempts: copies of the events, never to be sent now), its events of the window, its identity
 * and the record's completion, all or nothing. A pass interrupted midway leaves the remaining
 * deletions scheduled for the next one.
 */
export async function executeScheduledDeletions(store: Store, now: number, batch = 100): Promise<{ visitors: number; deliveries: number }> {
  const pending = await listScheduledDeletions(store, now, batch);
  let deliveries = 0;
  for (const deletion of pending) {
    const target = { workspaceId: deletion.workspace_id, visitorId: deletion.visitor_id };
    const since = deletion.requested_at - DELETION_EVENT_WINDOW_MS;
    deliveries += await store.transaction(async (trx) => {
      let copies = 0;
      let deleted = 0;
      // The relinked IDs' events first: deleteVisitor drops the links that name them.
      for (const absorbedId of await listAbsorbedVisitorIds(trx, target.workspaceId, target.visitorId)) {
        copies += await deleteDeliveriesOfVisitor(trx, target.workspaceId, absorbedId);
        deleted += await deleteVisitorEventsSince(trx, { workspaceId: target.workspaceId, visitorId: absorbedId, since });
      }
      copies += await deleteDeliveriesOfVisitor(trx, target.workspaceId, target.visitorId);
      deleted += await deleteVisitorEventsSince(trx, { ...target, since });
      await deleteVisitor(trx, target.workspaceId, target.visitorId);
      await markDeletionDone(trx, deletion.id, now, deleted);
      return copies;
    });
  }
  return { visitors: pending.length, deliveries };
}

/** Finished deletion records older than the day window no longer count for anything. */
export async function pruneDeletionRecords(store: Store, now: number): Promise<void> {
  await pruneDoneDeletions(store, now - 2 * DAY_MS);
}
