/**
 * Updating an event after the fact (v4 PATCH, v3 PUT): only the given fields change, the
 * stored payload and its mirrored columns are rewritten together, and events older than
 * 10 days are immutable (409 `state_not_ready`).
 */
import type { V4Event } from '../../events/v4-event.js';
import { MAX_LINKED_ID_LENGTH, MAX_TAGS_JSON_BYTES, type TagValue } from '../../protocol/index.js';
import type { EventUpdate } from '../../events/server-api.js';
import { findEventForUpdate, replaceEventPayload } from '../store/events.js';
import type { Store } from '../store/index.js';
import { ApiError, ERRORS, invalid } from './errors.js';
import { parseStoredEvent } from './stored-event.js';

export const UPDATE_MAX_AGE_MS = 10 * 24 * 60 * 60 * 1000;

/** Field names of the body in each API version. */
const NAMES = {
  v4: { linkedId: 'linked_id', tags: 'tags', suspect: 'suspect' },
  v3: { linkedId: 'linkedId', tags: 'tag', suspect: 'suspect' },
} as const;

/**
 * Keys that address an object's prototype. The JSON parser already refuses `__proto__` (and
 * `constructor.prototype`); the tags are refused (400) when any of these keys appears at any
 * depth, so stored tags are plain data that no reader merging them into an object can turn
 * into a prototype change.
 */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function reservedKey(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, child] of Object.entries(value)) {
    if (RESERVED_KEYS.has(key)) return key;
    const nested = reservedKey(child);
    if (nested !== undefined) return nested;
  }
  return undefined;
}

/** Validates a v4 or v3 update body into the v4 update. Unknown fields are ignored. */
export function parseEventUpdate(body: unknown, version: 'v4' | 'v3'): EventUpdate {
  const names = NAMES[version];
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ApiError(ERRORS.badRequest, 'invalid body: expected a JSON object');
  }
  const b = body as Record<string, unknown>;
  const update: EventUpdate = {};
  const linkedId = b[names.linkedId];
  if (linkedId !== undefined) {
    if (typeof linkedId !== 'string' || linkedId.length > MAX_LINKED_ID_LENGTH) {
      throw invalid(names.linkedId, `expected a string of at most ${MAX_LINKED_ID_LENGTH} characters`);
    }
    update.linked_id = linkedId;
  }
  const tags = b[names.tags];
  if (tags !== undefined) {
    if (tags === null || typeof tags !== 'object' || Array.isArray(tags)) {
      throw invalid(names.tags, 'expected a JSON object');
    }
    const reserved = reservedKey(tags);
    if (reserved !== undefined) throw invalid(names.tags, `key "${reserved}" is not allowed`);
    if (Buffer.byteLength(JSON.stringify(tags)) > MAX_TAGS_JSON_BYTES) {
      throw invalid(names.tags, `larger than ${MAX_TAGS_JSON_BYTES} bytes`);
    }
    update.tags = tags as TagValue;
  }
  const suspect = b[names.suspect];
  if (suspect !== undefined) {
    if (typeof suspect !== 'boolean') throw invalid(names.suspect, 'expected a boolean');
    update.suspect = suspect;
  }
  if (Object.keys(update).length === 0) {
    throw new ApiError(
      ERRORS.badRequest,
      `invalid body: give at least one of ${names.linkedId}, ${names.tags}, ${names.suspect}`,
    );
  }
  return update;
}

export function applyEventUpdate(event: V4Event, update: EventUpdate): V4Event {
  const next = { ...event };
  if (update.linked_id !== undefined) next.linked_id = update.linked_id;
  if (update.tags !== undefined) next.tags = update.tags;
  if (update.suspect !== undefined) next.suspect = update.suspect;
  return next;
}

export async function updateEvent(
  store: Store,
  opts: { workspaceId: string; environmentId: string | null; eventId: string; update: EventUpdate; now: number },
): Promise<void> {
  // Compare-and-set on the payload: a concurrent update of the same event makes the write
  // match nothing, and the update is applied again on top of the newer payload.
  for (let attempt = 0; attempt < 5; attempt++) {
    const row = await findEventForUpdate(store, opts.workspaceId, opts.eventId, opts.environmentId);
    if (row === undefined) throw new ApiError(ERRORS.eventNotFound);
    if (opts.now - row.timestamp > UPDATE_MAX_AGE_MS) throw new ApiError(ERRORS.stateNotReady);
    const next = applyEventUpdate(parseStoredEvent(row.payload), opts.update);
    const replaced = await replaceEventPayload(store, {
      workspaceId: opts.workspaceId,
      eventId: opts.eventId,
      timestamp: row.timestamp,
      environmentId: row.environment_id,
      previousPayload: row.payload,
      event: next,
    });
    if (replaced) return;
  }
  throw new ApiError(ERRORS.failed, 'the event is being updated concurrently, try again');
}
