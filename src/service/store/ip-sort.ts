/**
 * IP addresses as a sortable key (the `events.ip_sort` column): the 16 bytes of the IPv6 form
 * (IPv4 as `::ffff:a.b.c.d`) in 32 lowercase hex digits. A CIDR range is then one range
 * comparison `low <= ip_sort <= high` evaluated by the database, whatever text form the
 * address was stored in.
 */
import { isIPv4, isIPv6 } from 'node:net';

function ipv4Bits(ip: string): bigint {
  return ip.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

/** The 128-bit value of an address; undefined when it is no IP address. */
export function ipBits(ip: string): bigint | undefined {
  if (isIPv4(ip)) return (0xffffn << 32n) | ipv4Bits(ip);
  if (!isIPv6(ip)) return undefined;
  const withoutZone = ip.split('%')[0]!;
  // An embedded IPv4 tail (`::ffff:1.2.3.4`) counts as the last two groups.
  const lastColon = withoutZone.lastIndexOf(':');
  const tail = withoutZone.slice(lastColon + 1);
  let head = withoutZone;
  let tailBits: bigint | undefined;
  if (isIPv4(tail)) {
    tailBits = ipv4Bits(tail);
    head = `${withoutZone.slice(0, lastColon + 1)}0:0`;
  }
  const [left, right] = head.includes('::') ? head.split('::') : [head, undefined];
  const leftGroups = left ? left.split(':') : [];
  const rightGroups = right ? right.split(':') : [];
  const zeros = right === undefined ? [] : Array<string>(8 - leftGroups.length - rightGroups.length).fill('0');
  const groups = [...leftGroups, ...zeros, ...rightGroups];
  let bits = groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
  if (tailBits !== undefined) bits = (bits & ~0xffffffffn) | tailBits;
  return bits;
}

function hex(bits: bigint): string {
  return bits.toString(16).padStart(32, '0');
}

/** The sortable key of an address, null when it is absent or no IP address. */
export function ipSortKey(ip: string | null | undefined): string | null {
  const bits = ip ? ipBits(ip) : undefined;
  return bits === undefined ? null : hex(bits);
}

/** The keys of the first and last address of a CIDR range (IPv4 prefixes count in IPv4 bits). */
export function cidrSortRange(address: string, prefix: number): { low: string; high: string } {
  const bits = ipBits(address)!;
  const hostBits = BigInt((isIPv4(address) ? 32 : 128) - prefix);
  const hostMask = (1n << hostBits) - 1n;
  return { low: hex(bits & ~hostMask), high: hex(bits | hostMask) };
}
