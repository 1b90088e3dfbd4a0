/**
 * The event search of the Server API against the events table: every filter is a column
 * condition inside the time window (served by the events indexes), ordered by (timestamp,
 * event_id) so the pagination cursor is exact. A CIDR filter cannot be an index condition on a
 * text column, so it is applied to the rows as they stream by in cursor-ordered batches.
 */
import type { Kysely } from 'kysely';
import { internalsOf, type Store } from './handle.js';
import type { Database } from './schema.js';

/** The (timestamp, event_id) of the last event of a page: the next page starts after it. */
export interface EventCursor {
  timestamp: number;
  eventId: string;
}

/** Event columns holding a 0/1 signal. */
type SignalColumn = 'incognito' | 'vpn' | 'tampering' | 'virtual_machine' | 'developer_tools' | 'privacy_settings';

/** The filters of a search, as the Server API parsed them (server-api/search-filter.ts). */
export interface EventSearchQuery {
  start: number;
  end: number;
  limit: number;
  /** Oldest first. */
  reverse: boolean;
  cursor?: EventCursor;
  visitorId?: string;
  linkedId?: string;
  ip?: { exact: string } | { contains(ip: string): boolean };
  url?: string;
  origin?: string;
  environments?: string[];
  suspect?: boolean;
  bot?: 'all' | 'good' | 'bad' | 'none';
  signals: Partial<Record<SignalColumn, boolean>>;
  minSuspectScore?: number;
  sdkVersion?: string;
  sdkPlatform?: string;
  /** Count matches up to this many. */
  totalHits?: number;
}

export interface SearchRow {
  event_id: string;
  timestamp: number;
  ip_address: string | null;
  payload: string;
}

export interface FoundEvents {
  /** The page's rows, in order. */
  rows: SearchRow[];
  /** More matches follow the last row. */
  more: boolean;
  totalHits?: number;
}

const CIDR_BATCH = 500;

function filteredEvents(db: Kysely<Database>, workspaceId: string, s: EventSearchQuery) {
  let q = db
    .selectFrom('events')
    .where('workspace_id', '=', workspaceId)
    .where('timestamp', '>=', s.start)
    .where('timestamp', '<=', s.end);
  if (s.visitorId !== undefined) q = q.where('visitor_id', '=', s.visitorId);
  if (s.linkedId !== undefined) q = q.where('linked_id', '=', s.linkedId);
  if (s.ip !== undefined && 'exact' in s.ip) q = q.where('ip_address', '=', s.ip.exact);
  if (s.url !== undefined) q = q.where('url', '=', s.url);
  if (s.origin !== undefined) q = q.where('origin', '=', s.origin);
  if (s.environments !== undefined) q = q.where('environment_id', 'in', s.environments);
  if (s.suspect !== undefined) q = q.where('suspect', '=', s.suspect ? 1 : 0);
  if (s.bot === 'all') q = q.where('bot', 'in', ['good', 'bad']);
  else if (s.bot === 'none') q = q.where('bot', '=', 'not_detected');
  else if (s.bot !== undefined) q = q.where('bot', '=', s.bot);
  for (const [column, value] of Object.entries(s.signals) as [SignalColumn, boolean][]) {
    q = q.where(column, '=', value ? 1 : 0);
  }
  if (s.minSuspectScore !== undefined) q = q.where('suspect_score', '>=', s.minSuspectScore);
  if (s.sdkVersion !== undefined) q = q.where('sdk_version', '=', s.sdkVersion);
  if (s.sdkPlatform !== undefined) q = q.where('sdk_platform', '=', s.sdkPlatform);
  return q;
}

/** The query for rows of the filtered set after `cursor`, in search order, `size` at a time (exported for the index tests). */
export function searchQuery(
  db: Kysely<Database>,
  workspaceId: string,
  s: EventSearchQuery,
  cursor: EventCursor | undefined,
  size: number,
  withPayload: boolean,
) {
  const dir = s.reverse ? 'asc' : 'desc';
  const cmp = s.reverse ? '>' : '<';
  const edge = s.reverse ? '>=' : '<=';
  let q = filteredEvents(db, workspaceId, s);
  if (cursor !== undefined) {
    q = q
      .where('timestamp', edge, cursor.timestamp)
      .where((eb) =>
        eb.or([
          eb('timestamp', cmp, cursor.timestamp),
          eb.and([eb('timestamp', '=', cursor.timestamp), eb('event_id', cmp, cursor.eventId)]),
        ]),
      );
  }
  return q
    .select(['event_id', 'timestamp', 'ip_address'])
    .$if(withPayload, (qb) => qb.select('payload'))
    .orderBy('timestamp', dir)
    .orderBy('event_id', dir)
    .limit(size);
}

/** Up to `wanted` matching rows after `cursor`, applying the CIDR filter batch by batch. */
async function collect(
  db: Kysely<Database>,
  workspaceId: string,
  s: EventSearchQuery,
  cursor: EventCursor | undefined,
  wanted: number,
  withPayload: boolean,
): Promise<SearchRow[]> {
  const ip = s.ip;
  if (ip === undefined || 'exact' in ip) {
    return (await searchQuery(db, workspaceId, s, cursor, wanted, withPayload).execute()) as SearchRow[];
  }
  const matches: SearchRow[] = [];
  const batchSize = Math.max(CIDR_BATCH, wanted);
  for (;;) {
    const batch = (await searchQuery(db, workspaceId, s, cursor, batchSize, withPayload).execute()) as SearchRow[];
    for (const row of batch) {
      if (row.ip_address !== null && ip.contains(row.ip_address)) {
        matches.push(row);
        if (matches.length === wanted) return matches;
      }
    }
    const last = batch[batch.length - 1];
    if (last === undefined || batch.length < batchSize) return matches;
    cursor = { timestamp: last.timestamp, eventId: last.event_id };
  }
}

async function countHits(db: Kysely<Database>, workspaceId: string, s: EventSearchQuery, cap: number): Promise<number> {
  if (s.ip !== undefined && !('exact' in s.ip)) {
    return (await collect(db, workspaceId, s, undefined, cap, false)).length;
  }
  const capped = filteredEvents(db, workspaceId, s).select('event_id').limit(cap).as('capped');
  const row = await db
    .selectFrom(capped)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** One page of matching events after the search's cursor, and the capped hit count when asked. */
export async function findEventsForSearch(store: Store, workspaceId: string, s: EventSearchQuery): Promise<FoundEvents> {
  const { db } = internalsOf(store);
  const rows = await collect(db, workspaceId, s, s.cursor, s.limit + 1, true);
  const found: FoundEvents = { rows: rows.slice(0, s.limit), more: rows.length > s.limit };
  if (s.totalHits !== undefined) found.totalHits = await countHits(db, workspaceId, s, s.totalHits);
  return found;
}
