/**
 * Weak server-side evidence (pure): the client's network, coarsened so that a home router's
 * changing address or a /64 privacy address still compares equal.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** `v4:a.b.c` (the /24) or `v6:xxxx:xxxx:xxxx:xxxx` (the /64); null when not an IP. */
export function networkPrefix(ip: string | undefined): string | null {
  if (!ip) return null;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  const address = mapped ? mapped[1]! : ip;
  if (isIPv4(address)) return `v4:${address.split('.').slice(0, 3).join('.')}`;
  if (isIPv6(address)) {
    const [head = '', tail = ''] = address.toLowerCase().split('%')[0]!.split('::');
    const headParts = head ? head.split(':') : [];
    const tailParts = tail ? tail.split(':') : [];
    const missing = 8 - headParts.length - tailParts.length;
    const parts = address.includes('::') ? [...headParts, ...Array<string>(Math.max(0, missing)).fill('0'), ...tailParts] : headParts;
    return `v6:${parts.slice(0, 4).map((p) => p.replace(/^0+(?=.)/, '')).join(':')}`;
  }
  return null;
}

/** The block around a networkPrefix(): IPv4 /16, IPv6 /32 (an ISP's address pool). */
export function widerNetwork(prefix: string): string {
  return prefix.startsWith('v4:') ? prefix.split('.').slice(0, 2).join('.') : prefix.split(':').slice(0, 3).join(':');
}

/**
 * `network` (a networkPrefix()) lies in the block `wide` (a widerNetwork()): a prefix test,
 * which costs no split per network compared (the matcher compares every candidate's networks).
 */
export function inWiderNetwork(network: string, wide: string): boolean {
  return network.startsWith(wide) && network[wide.length] === (wide.startsWith('v4:') ? '.' : ':');
}

/**
 * `network` is part of a pool that a browser seen on `nets` hops through (carrier NAT, an ISP's
 * dynamic block): it was seen on at least `blocks` other networks of the same wider block.
 */
export function hopsThrough(network: string, nets: readonly string[], blocks: number): boolean {
  const wide = widerNetwork(network);
  return new Set(nets.filter((n) => n !== network && inWiderNetwork(n, wide))).size >= blocks;
}
