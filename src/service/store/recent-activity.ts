/**
 * What the stored events say about a new event's visitor, IP and linked_id over the last 24
 * hours: the visitor's and the linked_id's newest events, and how many events came from the
 * IP in each velocity window. Velocity counters and the replay check both come from it, read
 * in one prepared statement (one round trip on PostgreSQL): three range scans over the
 * (workspace, visitor | linked_id | ip, timestamp) indexes. Each scan reads at most
 * RECENT_SCAN_LIMIT of the newest events, so a hot visitor, IP or linked_id cannot make every
 * request slower: counts saturate there.
 */
import { type Kysely, sql } from 'kysely';
import type { Window3 } from '../../events/v4-event.js';
import { prepareQuery } from './prepared-query.js';
import type { Database } from './schema.js';

export const RECENT_WINDOWS_MS = { '5_minutes': 5 * 60_000, '1_hour': 60 * 60_000, '24_hours': 24 * 60 * 60_000 } as const;
export type WindowName = keyof typeof RECENT_WINDOWS_MS;
export const RECENT_SCAN_LIMIT = 1000;

export interface RecentEvent {
  timestamp: number;
  ip: string | null;
  linkedId: string | null;
  visitorId: string;
  requestHash: string | null;
}

export interface RecentActivity {
  now: number;
  /** The visitor's newest events of the last 24 hours (at most RECENT_SCAN_LIMIT, any order). */
  visitorEvents: RecentEvent[];
  /** The newest events with the same linked_id, any visitor (none without a linked_id). */
  linkedIdEvents: RecentEvent[];
  /** Stored events from the same IP per window (0 without an IP). */
  ipEvents: Window3;
}

interface Row {
  ip_5_minutes: number | string | null;
  ip_1_hour: number | string | null;
  ip_24_hours: number | string | null;
  source: 'visitor' | 'linked_id' | null;
  timestamp: number | string | null;
  ip_address: string | null;
  linked_id: string | null;
  visitor_id: string | null;
  request_hash: string | null;
}

const recentActivityQuery = prepareQuery((_db: Kysely<Database>, p) => {
  // A literal limit lets the planner stop each index scan early.
  const limit = sql.lit(RECENT_SCAN_LIMIT);
  const newest = (column: 'visitor_id' | 'linked_id', value: unknown) =>
    sql`select timestamp, ip_address, linked_id, visitor_id, request_hash from events
      where workspace_id = ${p('workspaceId')} and ${sql.ref(column)} = ${value} and timestamp >= ${p('since')}
      order by timestamp desc limit ${limit}`;
  // The IP part aggregates to exactly one row; the right join keeps it when no event matches.
  return sql<Row>`select ip.ip_5_minutes, ip.ip_1_hour, ip.ip_24_hours,
      r.source, r.timestamp, r.ip_address, r.linked_id, r.visitor_id, r.request_hash
    from (
      select 'visitor' as source, v.* from (${newest('visitor_id', p('visitorId'))}) as v
      union all
      select 'linked_id' as source, l.* from (${newest('linked_id', p('linkedId'))}) as l
    ) as r
    right join (
      select sum(case when timestamp >= ${p('since5Minutes')} then 1 else 0 end) as ip_5_minutes,
        sum(case when timestamp >= ${p('since1Hour')} then 1 else 0 end) as ip_1_hour,
        count(*) as ip_24_hours
      from (select timestamp from events
        where workspace_id = ${p('workspaceId')} and ip_address = ${p('ip')} and timestamp >= ${p('since')}
        order by timestamp desc limit ${limit}) as ip_recent
    ) as ip on 1 = 1`;
});

export async function readRecentActivity(
  db: Kysely<Database>,
  e: { workspaceId: string; visitorId: string; ip?: string; linkedId?: string; now: number },
): Promise<RecentActivity> {
  const rows = await recentActivityQuery(db, {
    workspaceId: e.workspaceId,
    visitorId: e.visitorId,
    // NULL matches nothing: no IP or no linked_id reads no events.
    ip: e.ip ?? null,
    linkedId: e.linkedId ?? null,
    since: e.now - RECENT_WINDOWS_MS['24_hours'],
    since5Minutes: e.now - RECENT_WINDOWS_MS['5_minutes'],
    since1Hour: e.now - RECENT_WINDOWS_MS['1_hour'],
  });
  const activity: RecentActivity = { now: e.now, visitorEvents: [], linkedIdEvents: [], ipEvents: { '5_minutes': 0, '1_hour': 0, '24_hours': 0 } };
  const first = rows[0];
  if (first) {
    activity.ipEvents = { '5_minutes': Number(first.ip_5_minutes ?? 0), '1_hour': Number(first.ip_1_hour ?? 0), '24_hours': Number(first.ip_24_hours ?? 0) };
  }
  for (const row of rows) {
    if (row.source === null) continue;
    const event: RecentEvent = {
      timestamp: Number(row.timestamp),
      ip: row.ip_address,
      linkedId: row.linked_id,
      visitorId: row.visitor_id ?? '',
      requestHash: row.request_hash,
    };
    (row.source === 'visitor' ? activity.visitorEvents : activity.linkedIdEvents).push(event);
  }
  return activity;
}
