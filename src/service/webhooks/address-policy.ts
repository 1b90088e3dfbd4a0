/**
 * Which IP addresses webhook deliveries may connect to (SSRF protection). A webhook URL is
 * chosen by a customer, so by default only public unicast addresses are allowed: nothing on
 * this machine, its private networks, link-local and cloud metadata endpoints, CGNAT, multicast
 * or reserved space. An allowlist (ipaddr.js's `unicast` range) rather than a blocklist: ranges
 * that embed other addresses (6to4, Teredo, NAT64) are refused too.
 */
import ipaddr from 'ipaddr.js';

/** Why an address is refused, or null when it may be connected to. */
export function refusedAddressReason(address: string): string | null {
  if (!ipaddr.isValid(address)) return `"${address}" is not an IP address`;
  // IPv4-mapped IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it reaches.
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  return range === 'unicast' ? null : `${address} is in a ${range} range`;
}
