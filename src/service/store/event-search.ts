/**
 * The event search of the Server API against the events table. Every search is bounded: one
 * statement reads at most `SEARCH_SCAN_BUDGET` events of the time window (in search order,
 * through the (workspace, time) index or the index of one selective equality filter) and
 * applies the other filters to those rows only. When the budget is used up before the page is
 * full, the page ends early and the cursor continues after the last event read, so a broad
 * filter (a wide CIDR range, a payload signal) pages through the window instead of scanning it
 * all at once: better-sqlite3 is synchronous, and one long statement would stall ingestion.
 * PostgreSQL additionally runs the search under `statement_timeout`. A search by a visitor
 * with relinked IDs (visitor-links.ts) reads the budget through the visitor index once per ID
 * (at most 1 + MAX_ABSORBED_IDS ranges) and keeps the first `SEARCH_SCAN_BUDGET` of the merge.
 */
import { sql, type ExpressionBuilder, type Expression, type SqlBool } from 'kysely';
import { internalsOf, type Store } from './handle.js';
import type { Database, EventsTable } from './schema.js';
import { listAbsorbedVisitorIds } from './visitor-links.js';

/** Events one search statement may read at most (a few milliseconds on SQLite). */
export const SEARCH_SCAN_BUDGET = 2000;
/** PostgreSQL: a search statement running longer than this is cancelled. */
export const SEARCH_STATEMENT_TIMEOUT_MS = 5000;

/** The (timestamp, event_id) of the last event of a page: the next page starts after it. */
export interface EventCursor {
  timestamp: number;
  eventId: string;
}

/** Event columns holding a 0/1 signal. */
type SignalColumn = 'incognito' | 'vpn' | 'tampering' | 'virtual_machine' | 'developer_tools' | 'privacy_settings';

/**
 * A filter on a field only the payload JSON holds: the value at any of `paths` (`or`) or at
 * all of them (`and`) equals `value`. An event lacking the field does not match.
 */
export interface PayloadCondition {
  paths: string[][];
  value: boolean | string;
  combine: 'or' | 'and';
}

/** The filters of a search, as the Server API parsed them (server-api/search-filter.ts). */
export interface EventSearchQuery {
  start: number;
  end: number;
  limit: number;
  /** Oldest first. */
  reverse: boolean;
  cursor?: EventCursor;
  visitorId?: string;
  /**
   * The IDs relinked to `visitorId` (visitor-links.ts): their events match it too. Filled in
   * by findEventsForSearch; each is scanned through its own index range.
   */
  absorbedVisitorIds?: readonly string[];
  linkedId?: string;
  /** An exact address, or a range of `ip_sort` keys (a CIDR filter). */
  ip?: { exact: string } | { range: { low: string; high: string } };
  url?: string;
  origin?: string;
  environments?: string[];
  suspect?: boolean;
  bot?: 'all' | 'good' | 'bad' | 'none';
  signals: Partial<Record<SignalColumn, boolean>>;
  minSuspectScore?: number;
  sdkVersion?: string;
  sdkPlatform?: string;
  payload: PayloadCondition[];
  /** Count matches up to this many. */
  totalHits?: number;
}

export interface SearchRow {
  event_id: string;
  timestamp: number;
  payload: string;
}

export interface FoundEvents {
  /** The page's rows, in order. */
  rows: SearchRow[];
  /** Where the next page starts, when more events may match. */
  next?: EventCursor;
  /** Matches up to `totalHits`, counted within the scan budget (a lower bound when reached). */
  totalHits?: number;
}

/** Thrown when PostgreSQL cancelled the search at its statement timeout. */
export class SearchTimeout extends Error {}

type Eb = ExpressionBuilder<Database, 'events'>;

/** The one equality filter whose (workspace, filter, time) index drives the scan, if any. */
function drivingFilter(s: EventSearchQuery): [keyof EventsTable, string] | undefined {
  if (s.visitorId !== undefined) return ['visitor_id', s.visitorId];
  if (s.linkedId !== undefined) return ['linked_id', s.linkedId];
  if (s.ip !== undefined && 'exact' in s.ip) return ['ip_address', s.ip.exact];
  if (s.url !== undefined) return ['url', s.url];
  if (s.origin !== undefined) return ['origin', s.origin];
  return undefined;
}

function jsonField(engine: Store['engine'], path: string[]): Expression<unknown> {
  return engine === 'sqlite'
    ? sql`json_extract(payload, ${`$.${path.join('.')}`})`
    : sql`(payload::jsonb #>> ${`{${path.join(',')}}`}::text[])`;
}

function payloadMatch(engine: Store['engine'], eb: Eb, c: PayloadCondition): Expression<SqlBool> {
  // SQLite's json_extract gives JSON booleans as 1/0; PostgreSQL's #>> gives 'true'/'false'.
  const wanted = typeof c.value === 'string' ? c.value : engine === 'sqlite' ? (c.value ? 1 : 0) : String(c.value);
  const parts = c.paths.map((path) => eb(jsonField(engine, path), '=', wanted));
  return c.combine === 'or' ? eb.or(parts) : eb.and(parts);
}

/** Every filter except the driving one, applied to the scanned rows. */
function rowConditions(engine: Store['engine'], eb: Eb, s: EventSearchQuery, driving: keyof EventsTable | undefined) {
  const c: Expression<SqlBool>[] = [];
  if (s.visitorId !== undefined && driving !== 'visitor_id') c.push(eb('visitor_id', '=', s.visitorId));
  if (s.linkedId !== undefined && driving !== 'linked_id') c.push(eb('linked_id', '=', s.linkedId));
  if (s.ip !== undefined && 'exact' in s.ip && driving !== 'ip_address') c.push(eb('ip_address', '=', s.ip.exact));
  if (s.ip !== undefined && 'range' in s.ip) c.push(eb.between('ip_sort', s.ip.range.low, s.ip.range.high));
  if (s.url !== undefined && driving !== 'url') c.push(eb('url', '=', s.url));
  if (s.origin !== undefined && driving !== 'origin') c.push(eb('origin', '=', s.origin));
  if (s.environments !== undefined) c.push(eb('environment_id', 'in', s.environments.length ? s.environments : ['']));
  if (s.suspect !== undefined) c.push(eb('suspect', '=', s.suspect ? 1 : 0));
  if (s.bot === 'all') c.push(eb('bot', 'in', ['good', 'bad']));
  else if (s.bot === 'none') c.push(eb('bot', '=', 'not_detected'));
  else if (s.bot !== undefined) c.push(eb('bot', '=', s.bot));
  for (const [column, value] of Object.entries(s.signals) as [SignalColumn, boolean][]) c.push(eb(column, '=', value ? 1 : 0));
  if (s.minSuspectScore !== undefined) c.push(eb('suspect_score', '>=', s.minSuspectScore));
  if (s.sdkVersion !== undefined) c.push(eb('sdk_version', '=', s.sdkVersion));
  if (s.sdkPlatform !== undefined) c.push(eb('sdk_platform', '=', s.sdkPlatform));
  for (const p of s.payload) c.push(payloadMatch(engine, eb, p));
  return c;
}

/** The scanned events: at most `budget` of the window after `cursor`, in search order. */
function scan(store: Store, workspaceId: string, s: EventSearchQuery, cursor: EventCursor | undefined) {
  const { db } = internalsOf(store);
  const dir: 'asc' | 'desc' = s.reverse ? 'asc' : 'desc';
  const cmp = s.reverse ? '>' : '<';
  const edge = s.reverse ? '>=' : '<=';
  const driving = drivingFilter(s);
  // Only the filter columns: a payload is a few KiB, read for the page's events alone (or
  // for every scanned one only when a payload filter needs it).
  const columns = s.payload.length > 0 ? [...FILTER_COLUMNS, 'payload' as const] : FILTER_COLUMNS;
  /** The window's first `budget` events, of the driving filter's value `value`. */
  const range = (value: string | undefined) => {
    let q = db
      .selectFrom('events')
      .where('workspace_id', '=', workspaceId)
      .where('timestamp', '>=', s.start)
      .where('timestamp', '<=', s.end);
    if (driving !== undefined) q = q.where(driving[0], '=', value!);
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
    return q.select(columns).orderBy('timestamp', dir).orderBy('event_id', dir).limit(SEARCH_SCAN_BUDGET);
  };
  const absorbed = driving?.[0] === 'visitor_id' ? (s.absorbedVisitorIds ?? []) : [];
  if (absorbed.length === 0) return { query: range(driving?.[1]), driving: driving?.[0], dir };
  // A visitor with IDs relinked to it: one bounded range of the (workspace, visitor, time)
  // index per ID, merged; the first `budget` of the merge are the first of the union.
  const [first, ...rest] = [driving![1], ...absorbed].map((id, i) => db.selectFrom(range(id).as(`v${i}`)).selectAll());
  const union = rest.reduce((all, part) => all.unionAll(part), first!);
  const query = db.selectFrom(union.as('merged')).selectAll().orderBy('timestamp', dir).orderBy('event_id', dir).limit(SEARCH_SCAN_BUDGET);
  return { query, driving: driving?.[0], dir };
}

const FILTER_COLUMNS = [
  'event_id', 'timestamp', 'visitor_id', 'linked_id', 'ip_address', 'ip_sort', 'url', 'origin', 'environment_id', 'suspect',
  'bot', 'incognito', 'vpn', 'tampering', 'virtual_machine', 'developer_tools', 'privacy_settings', 'suspect_score',
  'sdk_version', 'sdk_platform',
] as const satisfies readonly (keyof EventsTable)[];

/** The query for one page of matches (exported for the index tests). */
export function searchQuery(store: Store, workspaceId: string, s: EventSearchQuery, size: number) {
  const { db } = internalsOf(store);
  const scanned = scan(store, workspaceId, s, s.cursor);
  return db
    .selectFrom(scanned.query.as('events'))
    .select(['event_id', 'timestamp'])
    .where((eb) => eb.and(rowConditions(store.engine, eb as unknown as Eb, s, scanned.driving)))
    .orderBy('timestamp', scanned.dir)
    .orderBy('event_id', scanned.dir)
    .limit(size);
}

async function runBounded<T>(store: Store, work: (store: Store) => Promise<T>): Promise<T> {
  if (store.engine !== 'postgres') return work(store);
  try {
    return await store.transaction(async (trx) => {
      await sql`SET LOCAL statement_timeout = ${sql.lit(SEARCH_STATEMENT_TIMEOUT_MS)}`.execute(internalsOf(trx).db);
      return work(trx);
    });
  } catch (err) {
    if ((err as { code?: string }).code === '57014') throw new SearchTimeout('search cancelled at the statement timeout');
    throw err;
  }
}

/**
 * One page of matching events after the search's cursor, and the capped hit count when asked.
 * A search by visitor also returns the events of the IDs relinked to that visitor.
 */
export async function findEventsForSearch(store: Store, workspaceId: string, query: EventSearchQuery): Promise<FoundEvents> {
  return runBounded(store, async (store) => {
    const { db } = internalsOf(store);
    const s = query.visitorId === undefined ? query : { ...query, absorbedVisitorIds: await listAbsorbedVisitorIds(store, workspaceId, query.visitorId) };
    const rows = await searchQuery(store, workspaceId, s, s.limit + 1).execute();
    const page = rows.slice(0, s.limit);
    const payloads = new Map<string, string>();
    if (page.length > 0) {
      const ids = page.map((r) => r.event_id);
      // The page's times too: on PostgreSQL they name the partitions to read (event-partitions.ts).
      const times = [...new Set(page.map((r) => r.timestamp))];
      const found = await db
        .selectFrom('events')
        .select(['event_id', 'payload'])
        .where('workspace_id', '=', workspaceId)
        .where('event_id', 'in', ids)
        .where('timestamp', 'in', times)
        .execute();
      for (const r of found) payloads.set(r.event_id, r.payload);
    }
    const found: FoundEvents = {
      // An event deleted between the two statements is left out.
      rows: page.flatMap((r) => (payloads.has(r.event_id) ? [{ ...r, payload: payloads.get(r.event_id)! }] : [])),
    };
    const last = page[page.length - 1];
    if (rows.length > s.limit && last !== undefined) {
      found.next = { timestamp: last.timestamp, eventId: last.event_id };
    } else {
      // The page is not full: if the scan used its whole budget, continue after its last event.
      const scanned = scan(store, workspaceId, s, s.cursor);
      const lastScanned = await db
        .selectFrom(scanned.query.as('events'))
        .select(['event_id', 'timestamp'])
        .orderBy('timestamp', scanned.dir)
        .orderBy('event_id', scanned.dir)
        .offset(SEARCH_SCAN_BUDGET - 1)
        .limit(1)
        .executeTakeFirst();
      if (lastScanned !== undefined) found.next = { timestamp: lastScanned.timestamp, eventId: lastScanned.event_id };
    }
    if (s.totalHits !== undefined) {
      const counted = searchQuery(store, workspaceId, { ...s, cursor: undefined }, s.totalHits).clearSelect().select('event_id');
      const row = await db
        .selectFrom(counted.as('hits'))
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      found.totalHits = Number(row.n);
    }
    return found;
  });
}
