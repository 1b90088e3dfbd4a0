/**
 * The runtime values and their typing: int = bigint (int64, wrapping), float = number,
 * string, bool, nil = null, array = JS array, map = plain object (own keys only), plus the
 * opaque values network (cidr), duration and time.
 */
import { isIPv4 } from 'node:net';
import ipaddr from 'ipaddr.js';

export type Value = null | boolean | bigint | number | string | Value[] | MapValue | Opaque;
export interface MapValue {
  [key: string]: Value;
}

export abstract class Opaque {
  abstract readonly typeName: string;
  abstract equals(other: Value): boolean;
  abstract toString(): string;
}

type IP = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * A client address as networks test it: an IPv4 address as its 32 bits (an unsigned number,
 * no parser objects), an IPv6 one parsed; IPv4-mapped IPv6 counts as IPv4.
 */
type Address = number | ipaddr.IPv6;

function parseAddress(text: string): Address | undefined {
  // node:net's check first: then the text is four decimal numbers 0-255 without leading zeros.
  if (isIPv4(text)) {
    let bits = 0;
    let part = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 46 /* . */) {
        bits = (bits << 8) | part;
        part = 0;
      } else part = part * 10 + c - 48;
    }
    return ((bits << 8) | part) >>> 0;
  }
  if (!text.includes(':')) return undefined;
  let v6: ipaddr.IPv6;
  try {
    // Parsed once: IPv6.isValid(text) first would parse it twice (it fails where parse throws).
    v6 = ipaddr.IPv6.parse(text);
  } catch {
    return undefined;
  }
  return v6.isIPv4MappedAddress() ? bitsOf(v6.toIPv4Address()) : v6;
}

const bitsOf = (v4: ipaddr.IPv4): number => ((v4.octets[0]! << 24) | (v4.octets[1]! << 16) | (v4.octets[2]! << 8) | v4.octets[3]!) >>> 0;

/** The top `prefix` of 32 bits. */
const maskOf = (prefix: number): number => (prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0);

/**
 * A rule typically tests one address against many networks (`ip in cidr(a) || ip in cidr(b)`,
 * `any([...], ip in cidr(#))`): the last address parsed is kept, so each request's address is
 * parsed once, not once per network. Parsed addresses are immutable (match() only reads them).
 */
let lastIpText: string | undefined;
let lastIp: Address | undefined;
function parseIpOnce(text: string): Address | undefined {
  if (text !== lastIpText) {
    lastIp = parseAddress(text);
    lastIpText = text;
  }
  return lastIp;
}

export class Network extends Opaque {
  readonly typeName = 'network';
  /** For an IPv4 network: its masked address bits and mask. */
  private readonly v4Bits: number;
  private readonly v4Mask: number;

  private constructor(
    readonly address: IP,
    readonly prefix: number,
  ) {
    super();
    this.v4Mask = address.kind() === 'ipv4' ? maskOf(prefix) : 0;
    this.v4Bits = address.kind() === 'ipv4' ? (bitsOf(address as ipaddr.IPv4) & this.v4Mask) >>> 0 : 0;
  }

  static parse(text: string): Network | undefined {
    const slash = text.indexOf('/');
    const addrText = slash < 0 ? text : text.slice(0, slash);
    const prefixText = slash < 0 ? undefined : text.slice(slash + 1);
    let address: IP;
    if (ipaddr.IPv4.isValidFourPartDecimal(addrText)) address = ipaddr.IPv4.parse(addrText);
    else if (ipaddr.IPv6.isValid(addrText)) address = ipaddr.IPv6.parse(addrText);
    else return undefined;
    const max = address.kind() === 'ipv4' ? 32 : 128;
    if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
    const prefix = prefixText === undefined ? max : Number(prefixText);
    if (prefix > max) return undefined;
    return new Network(address, prefix);
  }

  contains(ip: string): boolean {
    const parsed = parseIpOnce(ip);
    // A network matches addresses of its own family only (IPv4-mapped IPv6 counts as IPv4).
    if (parsed === undefined) return false;
    if (typeof parsed === 'number') return this.address.kind() === 'ipv4' && (parsed & this.v4Mask) >>> 0 === this.v4Bits;
    return this.address.kind() === 'ipv6' && parsed.match(this.address, this.prefix);
  }

  override toString(): string {
    return `${this.address.toString()}/${this.prefix}`;
  }

  equals(other: Value): boolean {
    return other instanceof Network && other.toString() === this.toString();
  }
}

/** A Go time.Duration: int64 nanoseconds. */
export class Duration extends Opaque {
  readonly typeName = 'duration';
  constructor(readonly nanos: bigint) {
    super();
  }

  equals(other: Value): boolean {
    return other instanceof Duration && other.nanos === this.nanos;
  }

  override toString(): string {
    return formatDuration(this.nanos);
  }
}

/** A point in time (millisecond precision) with the IANA zone used to show it. */
export class Time extends Opaque {
  readonly typeName = 'time';
  constructor(
    readonly ms: number,
    readonly zone = 'UTC',
  ) {
    super();
  }

  equals(other: Value): boolean {
    return other instanceof Time && other.ms === this.ms;
  }

  override toString(): string {
    return new Date(this.ms).toISOString();
  }
}

export class Zone extends Opaque {
  readonly typeName = 'location';
  constructor(readonly name: string) {
    super();
  }

  equals(other: Value): boolean {
    return other instanceof Zone && other.name === this.name;
  }

  override toString(): string {
    return this.name;
  }
}

export const isInt = (v: Value): v is bigint => typeof v === 'bigint';
export const isNumber = (v: Value): v is bigint | number => typeof v === 'bigint' || typeof v === 'number';
export const isMap = (v: Value): v is MapValue => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Opaque);

export function typeName(v: Value): string {
  if (v === null || v === undefined) return 'nil';
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'bigint':
      return 'int';
    case 'number':
      return 'float';
    case 'string':
      return 'string';
  }
  if (Array.isArray(v)) return 'array';
  if (v instanceof Opaque) return v.typeName;
  return 'map';
}

export const toFloat = (v: bigint | number): number => (typeof v === 'bigint' ? Number(v) : v);
export const wrap = (v: bigint): bigint => BigInt.asIntN(64, v);

export function equal(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (isNumber(a) && isNumber(b)) {
    if (typeof a === 'bigint' && typeof b === 'bigint') return a === b;
    return toFloat(a) === toFloat(b);
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (a instanceof Opaque) return a.equals(b);
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => equal(x, b[i]!));
  if (!isMap(b) || Array.isArray(b)) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && equal((a)[k]!, b[k]!));
}

/** Three-way comparison for ordering operators and sort; undefined when the types do not order. */
export function compare(a: Value, b: Value): number | undefined {
  if (isNumber(a) && isNumber(b)) {
    if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
    const x = toFloat(a);
    const y = toFloat(b);
    return x < y ? -1 : x > y ? 1 : x === y ? 0 : NaN;
  }
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (a instanceof Duration && b instanceof Duration) return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
  if (a instanceof Time && b instanceof Time) return a.ms - b.ms;
  return undefined;
}

const UNITS: [string, bigint][] = [
  ['h', 3_600_000_000_000n],
  ['m', 60_000_000_000n],
  ['s', 1_000_000_000n],
  ['ms', 1_000_000n],
  ['us', 1_000n],
  ['µs', 1_000n],
  ['ns', 1n],
];

/** Go's time.ParseDuration: `300ms`, `-1.5h`, `2h45m`. */
export function parseDuration(text: string): bigint | undefined {
  const m = /^([-+]?)((?:\d+(?:\.\d*)?|\.\d+)(?:h|m|s|ms|us|µs|ns))+$/.exec(text);
  if (text === '0') return 0n;
  if (!m) return undefined;
  let total = 0;
  for (const part of text.replace(/^[-+]/, '').matchAll(/(\d+(?:\.\d*)?|\.\d+)(ms|us|µs|ns|h|m|s)/g)) {
    const unit = UNITS.find(([u]) => u === part[2])![1];
    total += Number(part[1]) * Number(unit);
  }
  if (!Number.isFinite(total) || total > 9.2e18) return undefined;
  return m[1] === '-' ? -BigInt(Math.round(total)) : BigInt(Math.round(total));
}

function formatDuration(nanos: bigint): string {
  if (nanos === 0n) return '0s';
  const sign = nanos < 0n ? '-' : '';
  let n = nanos < 0n ? -nanos : nanos;
  if (n < 1_000_000_000n) {
    if (n < 1_000n) return `${sign}${n}ns`;
    if (n < 1_000_000n) return `${sign}${Number(n) / 1e3}µs`;
    return `${sign}${Number(n) / 1e6}ms`;
  }
  const h = n / 3_600_000_000_000n;
  n %= 3_600_000_000_000n;
  const m = n / 60_000_000_000n;
  n %= 60_000_000_000n;
  const s = Number(n) / 1e9;
  return `${sign}${h > 0n ? `${h}h` : ''}${h > 0n || m > 0n ? `${m}m` : ''}${s}s`;
}

/** Converts a value to plain JSON-able JS (ints within the safe range become numbers). */
export function toPlain(v: Value): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(toPlain);
  if (v instanceof Opaque) return v.toString();
  if (isMap(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toPlain(x)]));
  return v;
}

/** Converts parsed JSON to values: integral numbers become ints. */
export function fromPlain(v: unknown): Value {
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) <= Number.MAX_SAFE_INTEGER ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(fromPlain);
  if (v && typeof v === 'object') {
    const out: MapValue = Object.create(null) as MapValue;
    for (const [k, x] of Object.entries(v)) out[k] = fromPlain(x);
    return out;
  }
  return (v ?? null) as Value;
}
