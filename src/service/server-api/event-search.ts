/**
 * Runs an `EventSearch` against the events table: every filter is a column condition inside
 * the time window (served by the events indexes), ordered by (timestamp, event_id) so the
 * pagination cursor is exact. A CIDR filter cannot be an index condition on a text column, so
 * it is applied to the rows as they stream by in cursor-ordered batches.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { encodePaginationKey, type Cursor } from './pagination-key.js';
import type { EventSearch } from './search-filter.js';

export interface SearchPage {
  /** Payload JSON of each event, in order. */
  payloads: string[];
  paginationKey?: string;
  totalHits?: number;
}

interface Row {
  event_id: string;
  timestamp: number;
  ip_address: string | null;
  payload: string;
}

const CIDR_BATCH = 500;

function filteredEvents(db: Kysely<Database>, workspaceId: string, s: EventSearch) {
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
  for (const [column, value] of Object.entries(s.signals) as [keyof EventSearch['signals'], boolean][]) {
    q = q.where(column, '=', value ? 1 : 0);
  }
  if (s.minSuspectScore !== undefined) q = q.where('suspect_score', '>=', s.minSuspectScore);
  if (s.sdkVersion !== undefined) q = q.where('sdk_version', '=', s.sdkVersion);
  if (s.sdkPlatform !== undefined) q = q.where('sdk_platform', '=', s.sdkPlatform);
  return q;
}

/** The query for rows of the filtered set after `cursor`, in search order, `size` at a time. */
export function searchQuery(
  db: Kysely<Database>,
  workspaceId: string,
  s: EventSearch,
  cursor: Cursor | undefined,
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
  s: EventSearch,
  cursor: Cursor | undefined,
  wanted: number,
  withPayload: boolean,
): Promise<Row[]> {
  const ip = s.ip;
  if (ip === undefined || 'exact' in ip) {
    return (await searchQuery(db, workspaceId, s, cursor, wanted, withPayload).execute()) as Row[];
  }
  const matches: Row[] = [];
  const batchSize = Math.max(CIDR_BATCH, wanted);
  for (;;) {
    const batch = (await searchQuery(db, workspaceId, s, cursor, batchSize, withPayload).execute()) as Row[];
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

async function countHits(db: Kysely<Database>, workspaceId: string, s: EventSearch, cap: number): Promise<number> {
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

export async function searchEvents(db: Kysely<Database>, workspaceId: string, s: EventSearch): Promise<SearchPage> {
  const rows = await collect(db, workspaceId, s, s.cursor, s.limit + 1, true);
  const page = rows.slice(0, s.limit);
  const result: SearchPage = { payloads: page.map((r) => r.payload) };
  const last = page[page.length - 1];
  if (rows.length > s.limit && last !== undefined) {
    result.paginationKey = encodePaginationKey({ timestamp: last.timestamp, eventId: last.event_id });
  }
  if (s.totalHits !== undefined) result.totalHits = await countHits(db, workspaceId, s, s.totalHits);
  return result;
}
