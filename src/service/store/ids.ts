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

/** Digits then lowercase letters: the same order in byte-wise (SQLite) and locale (PostgreSQL) text comparison. */
const TIME_DIGITS = 9;

/**
 * A resource id like `newId`, but time-ordered: `<prefix>_<epoch ms in base 36, 9 characters>`
 * `<11 random characters>` (unique as before within a millisecond). For rows written at a high
 * rate (webhook deliveries and attempts): consecutive ids land next to each other in the
 * primary-key B-tree, so an insert dirties the last page, not a random one (with random ids
 * SQLite's inserts cost about twice as much on a table of 100k rows).
 */
export function newTimeOrderedId(prefix: string, nowMs: number): string {
  return `${prefix}_${Math.trunc(nowMs).toString(36).padStart(TIME_DIGITS, '0')}${randomString(20 - TIME_DIGITS)}`;
}

/** `<epoch ms>.<6 url-safe random characters>`, the event id format of the contract. */
export function newEventId(nowMs: number): string {
  return `${Math.trunc(nowMs)}.${randomString(6, URL_SAFE)}`;
}

/**
 * The time in an event id (`<epoch ms>.<random>`, `newEventId`); undefined for an id of
 * another form. The service stamps an event's id and its `timestamp` from the same clock
 * reading, so this is the event's time.
 */
export function eventIdTime(eventId: string): number | undefined {
  const m = /^(\d{13})\./.exec(eventId);
  return m ? Number(m[1]) : undefined;
}
