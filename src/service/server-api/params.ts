/**
 * Pure parsing of Server API query strings and path parameters into typed values. Every
 * failure is a 400 `request_cannot_be_parsed` naming the parameter; unknown parameters (such
 * as the SDKs' `ii`) are refused where an endpoint lists what it knows (rejectUnknownParams).
 */
import { isIP } from 'node:net';
import { cidrSortRange } from '../store/ip-sort.js';
import { ApiError, ERRORS, invalid } from './errors.js';

/** Fastify's parsed query string: repeated keys become arrays. */
export type RawQuery = Record<string, string | string[] | undefined>;

const ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const INTEGER = /^-?\d+$/;

/** The contract's event id: `<13-digit epoch ms>.<6 url-safe chars>`, e.g. `1708102555327.NLOjmg`. */
const EVENT_ID_PATTERN = /^\d{13}\.[A-Za-z0-9_-]{6}$/;

/** An event (request) id from the path, checked before any lookup: a malformed one is a 400. */
export function parseEventId(value: string | undefined, name: string): string {
  if (value === undefined || !EVENT_ID_PATTERN.test(value)) throw invalid(name);
  return value;
}

/** Every parameter must be one the endpoint knows: an ignored filter would widen the answer. */
export function rejectUnknownParams(query: RawQuery, known: ReadonlySet<string>, what = 'unsupported filter'): void {
  for (const name of Object.keys(query)) {
    if (!known.has(name)) throw new ApiError(ERRORS.badRequest, `${what}: ${name}`);
  }
}

/** An event, request or visitor id from the path. */
export function parseId(value: string | undefined, name: string): string {
  if (value === undefined || !ID_PATTERN.test(value)) throw invalid(name);
  return value;
}

/** The one value of a parameter (undefined when absent); repeating it is an error. */
export function single(query: RawQuery, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw invalid(name, 'given more than once');
  return value;
}

export function all(query: RawQuery, name: string): string[] | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value : [value];
}

export function parseIntParam(
  query: RawQuery,
  name: string,
  range: { min: number; max: number },
): number | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  if (!INTEGER.test(raw)) throw invalid(name);
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < range.min || n > range.max) {
    throw invalid(name, `must be between ${range.min} and ${range.max}`);
  }
  return n;
}

export function parseBoolParam(query: RawQuery, name: string): boolean | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw invalid(name, 'must be true or false');
}

export function parseStringParam(query: RawQuery, name: string, maxLength = 1024): string | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  if (raw === '' || raw.length > maxLength) throw invalid(name);
  return raw;
}

/** A time as Unix milliseconds or RFC 3339. */
export function parseTimeParam(query: RawQuery, name: string): number | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  if (INTEGER.test(raw)) {
    const n = Number(raw);
    if (!Number.isSafeInteger(n) || n < 0) throw invalid(name);
    return n;
  }
  if (!RFC3339.test(raw)) throw invalid(name, 'expected RFC 3339 or Unix milliseconds');
  const ms = Date.parse(raw);
  if (Number.isNaN(ms)) throw invalid(name);
  return ms;
}

/** An IP filter: an exact address (index lookup) or a CIDR range of `ip_sort` keys. */
export type IpFilter = { exact: string } | { range: { low: string; high: string } };

export function parseIpFilter(query: RawQuery, name: string): IpFilter | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  const slash = raw.indexOf('/');
  if (slash < 0) {
    if (isIP(raw) === 0) throw invalid(name, 'expected an IP address or CIDR range');
    return { exact: raw };
  }
  const address = raw.slice(0, slash);
  const prefixText = raw.slice(slash + 1);
  const family = isIP(address);
  const prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  const maxPrefix = family === 4 ? 32 : 128;
  if (family === 0 || !(prefix >= 0 && prefix <= maxPrefix)) {
    throw invalid(name, 'expected an IP address or CIDR range');
  }
  if (prefix === maxPrefix) return { exact: address };
  return { range: cidrSortRange(address, prefix) };
}

export function parseEnumParam<T extends string>(query: RawQuery, name: string, values: readonly T[]): T | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  if (!(values as readonly string[]).includes(raw)) throw invalid(name, `must be one of ${values.join(', ')}`);
  return raw as T;
}
