/**
 * The two reference identifiers the report compares the service with, computed on the same
 * visit stream without the service:
 * - exact hash: the visitor ID is a hash of every collected signal, as open-source
 *   fingerprinting libraries do; any change of any signal gives a new ID and identical devices
 *   share one.
 * - cookie only: the visitor ID lives in first-party storage; it survives as long as the
 *   storage does and never joins two browsers.
 */
import { createHash } from 'node:crypto';
import type { Signals } from '../../src/protocol/index.js';

/** JSON with object keys sorted, so equal signal sets always serialise equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function exactHashVisitorId(signals: Signals): string {
  return `h:${createHash('sha256').update(canonicalJson(signals)).digest('hex').slice(0, 20)}`;
}

/** The storage jar is the cookie: its first visit mints the ID, its later visits read it back. */
export function cookieOnlyVisitorId(jar: string): string {
  return `c:${jar}`;
}
