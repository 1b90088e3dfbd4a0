/**
 * Opening sealed results on a backend: `unsealEventsResponse(sealed, keys)` tries each
 * encryption key (during a rotation: `previous_token`, `token` and `next_token`) and returns
 * the v4 event. The format and the cryptography live in src/events/sealed-result.ts, shared
 * with the service that seals.
 */
import { unsealEventJson, UnsealError, type UnsealFailureReason } from '../events/sealed-result.js';
import type { V4Event } from '../events/v4-event.js';

export type { UnsealFailureReason } from '../events/sealed-result.js';

/** The only algorithm of sealed results. */
export type DecryptionAlgorithm = 'aes-256-gcm';

export interface DecryptionKey {
  /** The 32-byte key: base64 text (the Management API's `token`) or the bytes. */
  key: string | Uint8Array;
  /** Default and only value: `aes-256-gcm`. */
  algorithm?: DecryptionAlgorithm;
}

/** Why the key at `keyIndex` (its index in the `keys` argument) did not open the result. */
export interface UnsealFailure {
  keyIndex: number;
  reason: UnsealFailureReason | 'unsupported_algorithm';
  message: string;
}

/** No key opened the sealed result; `errors` says why, one entry per key. */
export class UnsealAggregateError extends Error {
  override readonly name = 'UnsealAggregateError';

  constructor(readonly errors: UnsealFailure[]) {
    super(
      errors.length === 0
        ? 'cannot unseal: no decryption keys given'
        : `cannot unseal with any of ${errors.length} key(s): ${errors.map((e) => `#${e.keyIndex} ${e.reason}`).join(', ')}`,
    );
  }
}

/**
 * Opens a sealed result (the agent's `sealed_result.base64()` or its bytes) with the first key
 * that fits, and returns the v4 event it holds, the same body `GET /v4/events/{event_id}` gives.
 */
export async function unsealEventsResponse(sealed: Uint8Array | string, keys: readonly DecryptionKey[]): Promise<V4Event> {
  const errors: UnsealFailure[] = [];
  let bytes: Uint8Array | undefined;
  try {
    bytes = typeof sealed === 'string' ? fromBase64(sealed) : sealed;
  } catch {
    // Every key fails the same way; reported per key like any other failure.
  }
  for (const [keyIndex, { key, algorithm = 'aes-256-gcm' }] of keys.entries()) {
    try {
      if (algorithm !== 'aes-256-gcm') {
        errors.push({ keyIndex, reason: 'unsupported_algorithm', message: `unsupported algorithm "${String(algorithm)}"` });
        continue;
      }
      if (!bytes) throw new UnsealError('invalid_header', 'the sealed result is not valid base64');
      return (await unsealEventJson(bytes, typeof key === 'string' ? keyFromBase64(key) : key)) as V4Event;
    } catch (err) {
      if (!(err instanceof UnsealError)) throw err;
      errors.push({ keyIndex, reason: err.reason, message: err.message });
    }
  }
  throw new UnsealAggregateError(errors);
}

function keyFromBase64(text: string): Uint8Array {
  try {
    return fromBase64(text);
  } catch {
    throw new UnsealError('invalid_key', 'the key is not valid base64');
  }
}

/** Standard or URL-safe base64 to bytes; throws on anything else. */
function fromBase64(text: string): Uint8Array {
  const standard = text.trim().replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(standard);
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}
