/**
 * The rules of an encryption key's life, as pure functions: which values a rotation moves
 * where, and which timestamps a status change sets.
 */
import { randomBytes } from 'node:crypto';
import type { EncryptionKeyStatus } from '../store/schema.js';

/** The plain key values of one key (base64 of 32 random bytes each). */
export interface KeyTokens {
  previous: string | null;
  current: string;
  next: string;
}

export interface StatusTimes {
  status: EncryptionKeyStatus;
  lastActivatedAt: number | null;
  lastDeactivatedAt: number | null;
}

/** A fresh key value: 32 bytes from the OS CSPRNG, base64 (the contract's `token`). */
export function newKeyToken(): string {
  return randomBytes(32).toString('base64');
}

/** A new key: a current value to seal with and the next one, published ahead of the first rotation. */
export function initialTokens(fresh: () => string = newKeyToken): KeyTokens {
  return { previous: null, current: fresh(), next: fresh() };
}

/**
 * One rotation: previous <- current <- next <- a fresh value. Backends that already hold
 * `next` open new results at once; results sealed before stay open with `previous`.
 */
export function rotateTokens(tokens: KeyTokens, fresh: string): KeyTokens {
  return { previous: tokens.current, current: tokens.next, next: fresh };
}

/** The status and timestamps after setting `status` at `now`; setting the present status changes nothing. */
export function changeStatus(times: StatusTimes, status: EncryptionKeyStatus, now: number): StatusTimes {
  if (times.status === status) return times;
  return status === 'enabled' ? { ...times, status, lastActivatedAt: now } : { ...times, status, lastDeactivatedAt: now };
}

/** The status and timestamps of a key created with `status` at `now`. */
export function initialStatus(status: EncryptionKeyStatus, now: number): StatusTimes {
  return { status, lastActivatedAt: status === 'enabled' ? now : null, lastDeactivatedAt: null };
}
