/**
 * The legacy visitor lookup (`GET /visitors/:visitor_id`), as the contract defines it:
 * `limit` events of the visitor are scanned (newest first, after the pagination point), the
 * filters are applied to the scanned events only, and at most one visit is returned. The page
 * ends at the returned visit, or at the last scanned event when none matched, so a page can
 * be empty while later pages hold visits; `paginationKey` names that event and is present
 * only when a pagination parameter was used and more events are left to scan. The events of
 * the IDs relinked to the visitor (identification/relink.ts) are part of its history.
 */
import { toV3Visit } from '../../events/v4-to-v3.js';
import type { VisitorHistory } from '../../events/server-api.js';
import { findVisitorEventTimestamp, scanVisitorEvents } from '../store/events.js';
import type { Store } from '../store/index.js';
import { listAbsorbedVisitorIds } from '../store/visitor-links.js';
import { invalid } from './errors.js';
import { parseStoredEvent } from './stored-event.js';

export const VISITS_SCAN_LIMIT = { default: 100, max: 500 };

export interface VisitorHistoryQuery {
  visitorId: string;
  /** The caller's key is scoped to this environment: only its events count. */
  environmentId: string | null;
  /** Events to scan; undefined = the default. */
  limit?: number;
  paginationKey?: string;
  /** Deprecated: only events strictly before this Unix ms. */
  before?: number;
  requestId?: string;
  linkedId?: string;
}

export async function visitorHistory(
  store: Store,
  workspaceId: string,
  q: VisitorHistoryQuery,
): Promise<VisitorHistory> {
  // `limit=0` scans nothing useful; like an absent limit it means the default.
  const limit = q.limit === undefined || q.limit === 0 ? VISITS_SCAN_LIMIT.default : q.limit;
  const absorbedIds = await listAbsorbedVisitorIds(store, workspaceId, q.visitorId);

  let after: { timestamp: number; eventId: string } | undefined;
  if (q.paginationKey !== undefined) {
    const timestamp = await findVisitorEventTimestamp(store, {
      workspaceId,
      visitorId: q.visitorId,
      absorbedIds,
      eventId: q.paginationKey,
      environmentId: q.environmentId,
    });
    if (timestamp === undefined) throw invalid('paginationKey', 'no such event of this visitor');
    after = { timestamp, eventId: q.paginationKey };
  }

  // One more than the limit tells whether anything is left after the scanned page.
  const rows = await scanVisitorEvents(store, {
    workspaceId,
    visitorId: q.visitorId,
    absorbedIds,
    environmentId: q.environmentId,
    before: q.before,
    after,
    limit: limit + 1,
  });
  const scanned = rows.slice(0, limit);

  const matchIndex = scanned.findIndex(
    (r) =>
      (q.requestId === undefined || r.event_id === q.requestId) &&
      (q.linkedId === undefined || r.linked_id === q.linkedId),
  );
  const endIndex = matchIndex >= 0 ? matchIndex : scanned.length - 1;
  const end = scanned[endIndex];
  const history: VisitorHistory = {
    visitorId: q.visitorId,
    visits: matchIndex >= 0 ? [toV3Visit(parseStoredEvent(scanned[matchIndex]!.payload))] : [],
  };
  const paginationUsed = q.limit !== undefined || q.before !== undefined || q.paginationKey !== undefined;
  const moreLeft = endIndex < rows.length - 1;
  if (paginationUsed && moreLeft && end !== undefined) {
    history.paginationKey = end.event_id;
    history.lastTimestamp = end.timestamp;
  }
  return history;
}
