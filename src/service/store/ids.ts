/** Random identifiers and secrets. Everything here comes from the OS CSPRNG. */
import { randomBytes } from 'node:crypto';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const URL_SAFE = ALPHANUMERIC + '-_';

/** `length` characters drawn uniformly from `alphabet` (rejection sampling, no modulo bias). */
export function randomString(length: number, alphabet: string = ALPHANUMERIC): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A resource id with its type prefix, e.g. `tok_…`, `ae_…`, `tr_…`, `ws_…`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomString(20)}`;
}

/** `<epoch ms>.<6 url-safe random characters>`, the event id format of the contract. */
export function newEventId(nowMs: number): string {
  return `${Math.trunc(nowMs)}.${randomString(6, URL_SAFE)}`;
}
