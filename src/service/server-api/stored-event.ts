/**
 * A stored v4 event payload, parsed for the routes that rework it (v3 mappings, updates).
 * Rows written before bodies were depth-checked can nest deeper than the mappings and
 * `JSON.stringify` can follow; such a payload is answered with its over-deep values cut to
 * null rather than failing the request.
 */
import type { V4Event } from '../../events/v4-event.js';
import { cutBelowDepth, jsonDeeperThan } from '../http/json-depth.js';

/** Deeper than any payload the service writes (tags nest 32 levels at most). */
const MAX_STORED_DEPTH = 64;

export function parseStoredEvent(payload: string): V4Event {
  const event = JSON.parse(payload) as V4Event;
  return jsonDeeperThan(payload, MAX_STORED_DEPTH) ? (cutBelowDepth(event, MAX_STORED_DEPTH) as V4Event) : event;
}
