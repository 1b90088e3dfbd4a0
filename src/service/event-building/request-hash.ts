/**
 * `replayed` detection: a hash of the identification request as the agent sent it. A real
 * agent's every request carries the latest token the service issued (a new one per
 * response), so the same token with the same signals, URL, linked_id and tags seen again
 * for the visitor within REPLAY_WINDOW_MS means the request body was captured and resent.
 */
import { createHash } from 'node:crypto';
import type { IdentifyRequest } from '../../protocol/index.js';
import type { RecentEvent } from '../store/recent-activity.js';

/** At most the 24 hours of the visitor's events that recent-activity.ts reads. */
export const REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Undefined without a token: a tokenless request cannot be told from a repeat visit. */
export function requestHash(request: IdentifyRequest): string | undefined {
  if (!request.token) return undefined;
  return createHash('sha256')
    .update(JSON.stringify([request.token, request.url, request.linked_id ?? null, request.tags ?? null, request.signals]))
    .digest('base64url');
}

/** True when one of the visitor's recent events (recent-activity.ts) had this request hash. */
export function isReplay(hash: string | undefined, visitorEvents: readonly RecentEvent[], now: number): boolean {
  if (hash === undefined) return false;
  return visitorEvents.some((e) => e.requestHash === hash && e.timestamp >= now - REPLAY_WINDOW_MS);
}
