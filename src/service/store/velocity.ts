/**
 * Velocity counters of a new event: how much this visitor, IP and linked_id did in the last
 * 5 minutes, hour and day, counted from the stored events of recent-activity.ts (which bounds
 * the scans, so counts saturate for a very hot visitor, IP or linked_id); the new event itself
 * is added on top. Pure.
 */
import type { Velocity, Window3 } from '../../events/v4-event.js';
import { RECENT_WINDOWS_MS, type RecentActivity, type RecentEvent, type WindowName } from './recent-activity.js';

function windows(read: (w: WindowName) => number): Window3 {
  return { '5_minutes': read('5_minutes'), '1_hour': read('1_hour'), '24_hours': read('24_hours') };
}

/** Distinct values among the events of the window, leaving out `exclude` and NULLs. */
function distinct(events: RecentEvent[], since: number, value: (e: RecentEvent) => string | null, exclude: string): number {
  const seen = new Set<string>();
  for (const e of events) {
    const v = value(e);
    if (e.timestamp >= since && v !== null && v !== exclude) seen.add(v);
  }
  return seen.size;
}

export function computeVelocity(activity: RecentActivity, e: { visitorId: string; ip?: string; linkedId?: string }): Velocity {
  const since = (w: WindowName) => activity.now - RECENT_WINDOWS_MS[w];
  const { visitorEvents, linkedIdEvents } = activity;
  const self = (present: string | undefined) => (present ? 1 : 0);
  // Distinct counts are "the others + this one"; without a value of its own, the event has no others either.
  const others = (events: RecentEvent[], w: WindowName, value: (e: RecentEvent) => string | null, own: string | undefined) =>
    own === undefined ? 0 : distinct(events, since(w), value, own);
  const ip = e.ip;
  const linkedId = e.linkedId;
  return {
    distinct_ip: windows((w) => others(visitorEvents, w, (x) => x.ip, ip) + self(ip)),
    distinct_linked_id: windows((w) => others(visitorEvents, w, (x) => x.linkedId, linkedId) + self(linkedId)),
    // No IP geolocation database ships with Tessera, so countries cannot be told apart.
    distinct_country: windows(() => 0),
    events: windows((w) => visitorEvents.filter((x) => x.timestamp >= since(w)).length + 1),
    ip_events: windows((w) => (ip ? activity.ipEvents[w] + 1 : 0)),
    distinct_ip_by_linked_id: windows((w) => (linkedId ? others(linkedIdEvents, w, (x) => x.ip, ip) + self(ip) : 0)),
    distinct_visitor_id_by_linked_id: windows((w) => (linkedId ? distinct(linkedIdEvents, since(w), (x) => x.visitorId, e.visitorId) + 1 : 0)),
  };
}
