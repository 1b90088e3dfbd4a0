/**
 * Velocity counters of a new event: how much this visitor, IP and linked_id did in the last
 * 5 minutes, hour and day. Up to three range scans, in one statement, over the (workspace, visitor|ip|linked_id,
 * timestamp) indexes, counting the stored events; the new event itself is added on top.
 * Each scan reads at most VELOCITY_SCAN_LIMIT of the newest events, so a hot IP or visitor
 * cannot make every request slower: counts saturate there.
 */
import { type Kysely, sql } from 'kysely';
import type { Velocity, Window3 } from '../../events/v4-event.js';
import type { Database } from './schema.js';

export const VELOCITY_WINDOWS_MS = { '5_minutes': 5 * 60_000, '1_hour': 60 * 60_000, '24_hours': 24 * 60 * 60_000 } as const;
export const VELOCITY_SCAN_LIMIT = 1000;
type WindowName = keyof typeof VELOCITY_WINDOWS_MS;
const WINDOWS = Object.keys(VELOCITY_WINDOWS_MS) as WindowName[];

type Row = Record<string, number | string | null>;

function windows(read: (w: WindowName) => number): Window3 {
  return { '5_minutes': read('5_minutes'), '1_hour': read('1_hour'), '24_hours': read('24_hours') };
}

export async function computeVelocity(
  db: Kysely<Database>,
  e: { workspaceId: string; visitorId: string; ip?: string; linkedId?: string; now: number },
): Promise<Velocity> {
  const since = (w: WindowName) => e.now - VELOCITY_WINDOWS_MS[w];
  const from = since('24_hours');
  const ip = e.ip ?? null;
  const linkedId = e.linkedId ?? null;

  // Distinct counts exclude the new event's own value, then add it: "others + this one".
  const visitorCols = WINDOWS.map(
    (w) => sql`sum(case when timestamp >= ${since(w)} then 1 else 0 end) as ${sql.ref(`ev_${w}`)},
      count(distinct case when timestamp >= ${since(w)} and ip_address <> ${ip} then ip_address end) as ${sql.ref(`ip_${w}`)},
      count(distinct case when timestamp >= ${since(w)} and linked_id <> ${linkedId} then linked_id end) as ${sql.ref(`lid_${w}`)}`,
  );
  const newest = (column: 'visitor_id' | 'ip_address' | 'linked_id', value: string) =>
    sql`(select timestamp, ip_address, linked_id, visitor_id from events
      where workspace_id = ${e.workspaceId} and ${sql.ref(column)} = ${value} and timestamp >= ${from}
      order by timestamp desc limit ${VELOCITY_SCAN_LIMIT}) as recent`;
  const ipCols = WINDOWS.map((w) => sql`sum(case when timestamp >= ${since(w)} then 1 else 0 end) as ${sql.ref(`iev_${w}`)}`);
  const linkedCols = WINDOWS.map(
    (w) => sql`count(distinct case when timestamp >= ${since(w)} and ip_address <> ${ip} then ip_address end) as ${sql.ref(`lip_${w}`)},
      count(distinct case when timestamp >= ${since(w)} and visitor_id <> ${e.visitorId} then visitor_id end) as ${sql.ref(`lvid_${w}`)}`,
  );
  // One statement (one round trip): each part aggregates to exactly one row.
  const parts = [sql`(select ${sql.join(visitorCols)} from ${newest('visitor_id', e.visitorId)}) as v`];
  if (ip) parts.push(sql`(select ${sql.join(ipCols)} from ${newest('ip_address', ip)}) as i`);
  if (linkedId) parts.push(sql`(select ${sql.join(linkedCols)} from ${newest('linked_id', linkedId)}) as l`);
  const { rows } = await sql<Row>`select * from ${sql.join(parts, sql` cross join `)}`.execute(db);

  const row = rows[0];
  const n = (column: string) => Number(row?.[column] ?? 0);
  const self = (present: unknown) => (present ? 1 : 0);
  return {
    distinct_ip: windows((w) => n(`ip_${w}`) + self(ip)),
    distinct_linked_id: windows((w) => n(`lid_${w}`) + self(linkedId)),
    // No IP geolocation database ships with Tessera, so countries cannot be told apart.
    distinct_country: windows(() => 0),
    events: windows((w) => n(`ev_${w}`) + 1),
    ip_events: windows((w) => (ip ? n(`iev_${w}`) + 1 : 0)),
    distinct_ip_by_linked_id: windows((w) => (linkedId ? n(`lip_${w}`) + self(ip) : 0)),
    distinct_visitor_id_by_linked_id: windows((w) => (linkedId ? n(`lvid_${w}`) + 1 : 0)),
  };
}
