/**
 * `replayed` detection: a hash of the identification request as the agent sent it. A real
 * agent's every request carries the latest token the service issued (a new one per
 * response), so the same token with the same signals, URL, linked_id and tags seen again
 * for the visitor within REPLAY_WINDOW_MS means the request body was captured and resent
 * (recent-activity.ts looks for the hash among the visitor's stored events).
 */
import { hash } from 'node:crypto';
import type { IdentifyRequest } from '../../protocol/index.js';

/** At most the 24 hours of the visitor's events that recent-activity.ts reads. */
export const REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Undefined without a token: a tokenless request cannot be told from a repeat visit. */
export function requestHash(request: IdentifyRequest): string | undefined {
  if (!request.token) return undefined;
  // One-shot hash(): no Hash object per request.
  return hash('sha256', JSON.stringify([request.token, request.url, request.linked_id ?? null, request.tags ?? null, request.signals]), 'base64url');
}
