/**
 * The wire protocol between the browser agent and the Tessera service, typed once (the signals
 * in signals.ts). `docs/protocol.md` is the prose version of this file; keep the two in step
 * (its signal table is generated: `npx tsx scripts/generate-signal-docs.ts`).
 *
 * Transport: the agent POSTs the JSON of an `IdentifyRequest` to the endpoint URL, with
 * `Content-Type: text/plain` (a CORS "simple request", so browsers send no preflight) and
 * the query parameter `ci=js/<agent version>`. The service answers 200 with an
 * `IdentifyResponse`, or a 4xx/5xx with an `IdentifyErrorResponse`.
 */
import type { SignalName, Signals } from './signals.js';

/** Bumped on any incompatible change of request or response. */
export const PROTOCOL_VERSION = 1 as const;

/** Largest request body the service accepts (bytes); larger gets 413 `payload_too_large`. */
export const MAX_REQUEST_BYTES = 64 * 1024;
/** `linkedId` limit in characters. */
export const MAX_LINKED_ID_LENGTH = 256;
/** `url` and `referrer` limit in characters; the agent cuts longer ones to this length. */
export const MAX_URL_LENGTH = 8192;
/** `tags` limit: bytes of its JSON. */
export const MAX_TAGS_JSON_BYTES = 16 * 1024;

export type TagValue = string | number | boolean | null | { [key: string]: unknown };

export interface SdkInfo {
  platform: 'js';
  version: string;
  integrations?: { name: string; version: string }[];
}

// Declared once, as a table, in signals.ts; type-only so that the agent bundle stays free of it.
export type { SignalName, Signals } from './signals.js';

export interface IdentifyRequest {
  v: typeof PROTOCOL_VERSION;
  /** Public API key. */
  api_key: string;
  /** location.href, with parts hashed when the page asked for urlHashing. */
  url: string;
  /** document.referrer, hashed the same way; omitted when empty. */
  referrer?: string;
  linked_id?: string;
  tags?: TagValue;
  /** The visitor token the service issued before, as read back from storage. */
  token?: string;
  sdk: SdkInfo;
  signals: Signals;
  /** Sources that failed: name -> short error code (e.g. 'timeout', 'unsupported'). */
  signal_errors?: Partial<Record<SignalName, string>>;
}

export interface Confidence {
  score: number;
  version: string;
  comment?: string;
}

export interface IdentifyResponse {
  v: typeof PROTOCOL_VERSION;
  event_id: string;
  visitor_id: string;
  confidence: Confidence;
  visitor_found: boolean;
  suspect_score?: number;
  /** Base64 of the sealed result, or null when no encryption key is enabled. */
  sealed_result: string | null;
  /** Signed visitor token to persist in the browser's storages. */
  token: string;
}

export interface IdentifyErrorResponse {
  v: typeof PROTOCOL_VERSION;
  error: { code: string; message: string };
  /** Set when the service recorded the request under an id (e.g. denied by a rule). */
  event_id?: string | null;
}
