/**
 * Velocity counters of a new event: how much this visitor, IP and linked_id did in the last
 * 5 minutes, hour and day, from the counts of recent-activity.ts (which bounds the scans, so
 * counts saturate for a very hot visitor, IP or linked_id); the new event itself is added on
 * top. Pure.
 */
import type { Velocity, Window3 } from '../../events/v4-event.js';
import { perWindow, type RecentActivity, type WindowName } from '../store/recent-activity.js';

export function computeVelocity(activity: RecentActivity, e: { ip?: string; linkedId?: string }): Velocity {
  const self = (present: string | undefined) => (present ? 1 : 0);
  // Distinct counts are "the others + this one"; without a value of its own, the event has no others either.
  const others = (counts: Window3, w: WindowName, own: string | undefined) => (own === undefined ? 0 : counts[w]);
  const { ip, linkedId } = e;
  return {
    distinct_ip: perWindow((w) => others(activity.visitorOtherIps, w, ip) + self(ip)),
    distinct_linked_id: perWindow((w) => others(activity.visitorOtherLinkedIds, w, linkedId) + self(linkedId)),
    // No IP geolocation database ships with Tessera, so countries cannot be told apart.
    distinct_country: perWindow(() => 0),
    events: perWindow((w) => activity.visitorEvents[w] + 1),
    ip_events: perWindow((w) => (ip ? activity.ipEvents[w] + 1 : 0)),
    distinct_ip_by_linked_id: perWindow((w) => (linkedId ? others(activity.linkedIdOtherIps, w, ip) + self(ip) : 0)),
    distinct_visitor_id_by_linked_id: perWindow((w) => (linkedId ? activity.linkedIdOtherVisitors[w] + 1 : 0)),
  };
}
