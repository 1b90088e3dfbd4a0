/**
 * A household's other networks (pure). A home's address changes (a new lease from the ISP, a
 * new router or provider), and its browsers carry their tokens from the old address to the new
 * one. A browser of that home that lost its storage and comes back on the new address was never
 * seen there under its own ID, so the evidence that singles it out at home (matcher.ts, the
 * network few visitors use) would be lost. The household's other networks keep it: the
 * networks on which the visitors seen on this one were also seen, when few visitors use them
 * (a home; not an office, a carrier pool or a VPN exit, which many browsers pass through).
 */
import { hopsThrough } from './network.js';

/** A network of the visit's household, as the store counted it. */
export interface HouseholdNetwork {
  network: string;
  /** Distinct visitors seen on it (its `p:` key, up to the store's count limit). */
  visitors: number;
  /** Visitors of the visit's hardware class seen on it (its `n:` key): look-alikes of the household. */
  lookalikes: number;
}

/**
 * The networks other than `network` on which its visitors (`neighbours`, each with its recent
 * networks) were also seen, those most of them share first, at most `limit`. A network a
 * neighbour hops through with others of its wider block (`poolNetworks` or more: a phone's
 * carrier NAT) is not a home and is left out.
 */
export function neighbourNetworks(
  network: string,
  neighbours: readonly { nets: readonly string[] }[],
  opts: { limit: number; poolNetworks: number },
): string[] {
  const shared = new Map<string, number>();
  for (const { nets } of neighbours) {
    for (const other of new Set(nets)) {
      if (other === network || hopsThrough(other, nets, opts.poolNetworks)) continue;
      shared.set(other, (shared.get(other) ?? 0) + 1);
    }
  }
  return [...shared]
    .sort((a, b) => b[1] - a[1])
    .slice(0, opts.limit)
    .map(([other]) => other);
}
