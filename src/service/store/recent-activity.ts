/**
 * What the stored events say about a new event's visitor, IP and linked_id over the last 24
 * hours: the counts its velocity counters come from (velocity.ts) and whether the visitor
 * already sent this very request (the replay check). One prepared statement (one round trip
 * on PostgreSQL) of three range scans over the (workspace, visitor | linked_id | ip,
 * timestamp) indexes. The database groups each scan by the values counted distinctly and
 * counts each group's events per window, so a busy visitor's hundreds of events come back as
 * the few rows of its distinct IPs and linked_ids. On SQLite the visitor index also holds
 * those columns (migration 005): that scan never reads the table.
 *
 * Each scan reads at most RECENT_SCAN_LIMIT of the newest events, so a hot visitor, IP or
 * linked_id cannot make every request slower: counts saturate there.
 */
import { sql, type RawBuilder } from 'kysely';
import type { Window3 } from '../../events/v4-event.js';
import { DEFAULT_VARIANT, prepareQuery, type ParamMarker, type Variant } from './prepared-query.js';
import { partitionsHolding } from './recent-partitions.js';
import type { Store } from './handle.js';

export const RECENT_WINDOWS_MS = { '5_minutes': 5 * 60_000, '1_hour': 60 * 60_000, '24_hours': 24 * 60 * 60_000 } as const;
export type WindowName = keyof typeof RECENT_WINDOWS_MS;
export const RECENT_SCAN_LIMIT = 1000;
/**
 * Events stamped up to this far after `now` still count (another process's clock may run a
 * little ahead). The upper bound lets PostgreSQL plan only the partitions of those hours
 * (event-partitions.ts), not the empty ones made for the week ahead.
 */
const FUTURE_MARGIN_MS = 60 * 60_000;

/** The three velocity windows, each from `read`. */
export function perWindow(read: (w: WindowName) => number): Window3 {
  return { '5_minutes': read('5_minutes'), '1_hour': read('1_hour'), '24_hours': read('24_hours') };
}

export interface RecentActivity {
  /** The visitor's newest events of the last 24 hours (at most RECENT_SCAN_LIMIT), per window. */
  visitorEvents: Window3;
  /** Distinct IPs among them, the new event's own IP left out. */
  visitorOtherIps: Window3;
  /** Distinct linked_ids among them, the new event's own linked_id left out. */
  visitorOtherLinkedIds: Window3;
  /** Among the newest events with the new event's linked_id (any visitor): distinct IPs but its own. */
  linkedIdOtherIps: Window3;
  /** The same events' distinct visitor IDs, the new event's visitor left out. */
  linkedIdOtherVisitors: Window3;
  /** Stored events from the same IP per window (0 without an IP). */
  ipEvents: Window3;
  /** One of the visitor's events since `replaySince` had the new event's request hash. */
  replayed: boolean;
}

/** One row of the statement: one group of one scan. */
export interface ActivityRow {
  /** Which scan the row comes from. */
  source: 'visitor' | 'linked_id' | 'ip';
  /** visitor: (IP, linked_id) of the group; linked_id: (IP, visitor ID); ip: nulls. */
  a: string | null;
  b: string | null;
  /** The group's events per window. */
  n_5_minutes: number | string;
  n_1_hour: number | string;
  n_24_hours: number | string;
  replays: number | string;
}

/** The two halves of the statement: the visitor's own events, and the events of its network (linked_id, IP). */
export type ActivityPart = 'visitor' | 'network';

/** The columns of `events` the scans read. */
const SCANNED_COLUMNS = sql.raw('workspace_id, visitor_id, linked_id, ip_address, timestamp, request_hash');

/**
 * What the scans read, by the variant key of activityVariant: the parent `events` (''), or the
 * partitions holding the window, by name (PostgreSQL).
 */
function activitySource(key: string): RawBuilder<unknown> {
  if (key === '') return sql`events`;
  const parts = key.split(',').map((name) => sql`select ${SCANNED_COLUMNS} from ${sql.id(name)}`);
  return parts.length === 1 ? sql`${sql.id(key)} as events` : sql`(${sql.join(parts, sql` union all `)}) as events`;
}

/**
 * The rows of `part` as SQL, with `p(name)` for each value (prepared-query.ts): `workspaceId`,
 * `visitorId`, `ip`, `linkedId`, `requestHash`, `replaySince`, `since`, `since5Minutes`,
 * `since1Hour`, `until` (recentActivityValues), reading what `variantKey` names (activityVariant).
 * Also a part of the identification's read on PostgreSQL (visitors.ts).
 */
export function activityRowsSql(p: ParamMarker, part: ActivityPart, variantKey: string) {
  const source = activitySource(variantKey);
  // A literal limit lets the planner stop each index scan early.
  const limit = sql.lit(RECENT_SCAN_LIMIT);
  // Every scan starts 24 hours back, so the widest window is count(*).
  const countsPerWindow = sql`count(case when timestamp >= ${p('since5Minutes')} then 1 end) as n_5_minutes,
    count(case when timestamp >= ${p('since1Hour')} then 1 end) as n_1_hour, count(*) as n_24_hours`;
  const newest = (column: 'visitor_id' | 'linked_id' | 'ip_address', value: string, columns: string) =>
    sql`select ${sql.raw(columns)} from ${source}
      where workspace_id = ${p('workspaceId')} and ${sql.ref(column)} = ${p(value)}
        and timestamp >= ${p('since')} and timestamp < ${p('until')}
      order by timestamp desc limit ${limit}`;
  if (part === 'visitor') {
    return sql<ActivityRow>`select 'visitor' as source, ip_address as a, linked_id as b, ${countsPerWindow},
        count(case when request_hash = ${p('requestHash')} and timestamp >= ${p('replaySince')} then 1 end) as replays
      from (${newest('visitor_id', 'visitorId', 'timestamp, ip_address, linked_id, request_hash')}) as visitor_recent
      group by ip_address, linked_id`;
  }
  return sql<ActivityRow>`select 'linked_id' as source, ip_address as a, visitor_id as b, ${countsPerWindow}, 0 as replays
    from (${newest('linked_id', 'linkedId', 'timestamp, ip_address, visitor_id')}) as linked_recent
    group by ip_address, visitor_id
    union all
    select 'ip', null, null, ${countsPerWindow}, 0
    from (${newest('ip_address', 'ip', 'timestamp')}) as ip_recent`;
}

/**
 * The variant of the statements that read recent activity over `values`' window
 * (recentActivityValues): on PostgreSQL the partitions holding it by name, kept planned
 * (recent-partitions.ts); the parent, planned for its values, when no list covers it. SQLite
 * has one table.
 */
export async function activityVariant(store: Store, values: { since: number; until: number }): Promise<Variant> {
  if (store.engine !== 'postgres') return DEFAULT_VARIANT;
  const names = await partitionsHolding(store, values.since, values.until);
  return names === null ? { key: '', named: false } : { key: names.join(','), named: true };
}

const recentActivityQuery = prepareQuery<ActivityRow>(
  (_db, p, key) => sql<ActivityRow>`${activityRowsSql(p, 'visitor', key)} union all ${activityRowsSql(p, 'network', key)}`,
);
const visitorActivityQuery = prepareQuery<ActivityRow>((_db, p, key) => activityRowsSql(p, 'visitor', key));

/** Per window, the distinct non-null values of the groups that have events in it, `own` left out. */
function distinctPerWindow(rows: ActivityRow[], value: (row: ActivityRow) => string | null, own: string | undefined): Window3 {
  return perWindow((w) => {
    const seen = new Set<string>();
    for (const row of rows) {
      const v = value(row);
      if (v !== null && v !== own && Number(row[`n_${w}`]) > 0) seen.add(v);
    }
    return seen.size;
  });
}

function sumPerWindow(rows: ActivityRow[]): Window3 {
  return perWindow((w) => rows.reduce((total, row) => total + Number(row[`n_${w}`]), 0));
}

/** What the counters are read for. */
export interface RecentActivityQuery {
  workspaceId: string;
  visitorId: string;
  ip?: string;
  linkedId?: string;
  requestHash?: string;
  replaySince: number;
  now: number;
}

/** The named values of activityRowsSql. */
export function recentActivityValues(e: Omit<RecentActivityQuery, 'visitorId'> & { visitorId: string | null }) {
  return {
    workspaceId: e.workspaceId,
    visitorId: e.visitorId,
    // NULL matches nothing: no IP, linked_id or request hash reads (or finds) no events.
    ip: e.ip ?? null,
    linkedId: e.linkedId ?? null,
    requestHash: e.requestHash ?? null,
    replaySince: e.replaySince,
    since: e.now - RECENT_WINDOWS_MS['24_hours'],
    since5Minutes: e.now - RECENT_WINDOWS_MS['5_minutes'],
    since1Hour: e.now - RECENT_WINDOWS_MS['1_hour'],
    until: e.now + FUTURE_MARGIN_MS,
  };
}

/**
 * Rows read ahead, in the statement that loaded the identification state (PostgreSQL,
 * visitors.ts): the network part, and the visitor part of the visitor the visit's token named
 * (the visitor the visit links to whenever it still exists).
 */
export interface PrefetchedActivity {
  network: ActivityRow[];
  visitor?: { visitorId: string; rows: ActivityRow[] };
}

/**
 * The recent activity of a new event. With `prefetched`, only what it lacks is read: nothing
 * when it holds the visitor's part, or when the visitor is `newVisitor` (created by this very
 * visit: it has no events yet); otherwise the visitor's part alone.
 */
export async function readRecentActivity(
  store: Store,
  e: RecentActivityQuery,
  prefetched?: PrefetchedActivity & { newVisitor: boolean },
): Promise<RecentActivity> {
  const values = recentActivityValues(e);
  let rows: ActivityRow[];
  if (prefetched === undefined) rows = await recentActivityQuery(store, values, await activityVariant(store, values));
  else if (prefetched.visitor?.visitorId === e.visitorId) rows = [...prefetched.visitor.rows, ...prefetched.network];
  else if (prefetched.newVisitor) rows = prefetched.network;
  else rows = [...(await visitorActivityQuery(store, values, await activityVariant(store, values))), ...prefetched.network];
  const visitor = rows.filter((r) => r.source === 'visitor');
  const linked = rows.filter((r) => r.source === 'linked_id');
  return {
    visitorEvents: sumPerWindow(visitor),
    visitorOtherIps: distinctPerWindow(visitor, (r) => r.a, e.ip),
    visitorOtherLinkedIds: distinctPerWindow(visitor, (r) => r.b, e.linkedId),
    linkedIdOtherIps: distinctPerWindow(linked, (r) => r.a, e.ip),
    linkedIdOtherVisitors: distinctPerWindow(linked, (r) => r.b, e.visitorId),
    ipEvents: sumPerWindow(rows.filter((r) => r.source === 'ip')),
    replayed: visitor.some((r) => Number(r.replays) > 0),
  };
}
