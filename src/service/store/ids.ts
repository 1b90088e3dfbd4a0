/** Random identifiers and secrets. Everything here comes from the OS CSPRNG. */
import { randomBytes } from 'node:crypto';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const URL_SAFE = ALPHANUMERIC + '-_';

/**
 * CSPRNG bytes drawn 4 KiB at a time (one system call per ~200 IDs instead of one each, as
 * crypto.randomUUID does); every byte is handed out once.
 */
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function randomByte(): number {
  if (poolOffset >= pool.length) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
  return pool[poolOffset++]!;
}

/** `length` characters drawn uniformly from `alphabet` (rejection sampling, no modulo bias). */
export function randomString(length: number, alphabet: string = ALPHANUMERIC): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < limit) out += alphabet[byte % alphabet.length];
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
