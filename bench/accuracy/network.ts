/**
 * Where a session's requests come from. Addresses are synthetic; what matters is who shares
 * them: a household's home address (changing with its DHCP lease, IPv6 privacy addresses
 * rotating daily inside a stable /64), an office's single egress address shared by all its
 * machines and guests, a mobile carrier's carrier-grade NAT pool shared by every phone of the
 * country on that carrier, VPN exits shared by all their customers, hotel and café networks.
 */
import { hash32, Rng } from './prng.js';
import type { Country } from './catalog.js';
import type { Device, Household, Office, SimBrowser } from './population.js';
import { dayOf } from './schedule.js';

export type NetworkKind = 'home' | 'office' | 'carrier' | 'vpn' | 'public-wifi' | 'roaming';

/**
 * A carrier's NAT pool spans many /24 blocks, so one block sees few phones at a time although
 * thousands share the pool; addresses per VPN provider.
 */
const CARRIER_BLOCKS = 64;
const CARRIER_POOL = 256;
/** Egress addresses of a corporate campus (one /24). */
const CAMPUS_EGRESS = 4;
const VPN_POOL = 40;

function octets(n: number): string {
  return `${(n >>> 8) & 255}.${n & 255}`;
}

export function homeIp(h: Household, day: number, rng: Rng): string {
  const lease = Number.isFinite(h.leaseDays) ? Math.floor(day / h.leaseDays) : 0;
  if (h.ipv6) {
    const prefix = hash32(`v6:${h.id}:${lease}`).toString(16).padStart(8, '0');
    return `2a02:${h.country.ipBlock.toString(16)}${h.isp}:${prefix.slice(0, 4)}:${prefix.slice(4)}:${rng.hex(4)}:${rng.hex(4)}:${rng.hex(4)}:${rng.hex(4)}`;
  }
  return `${h.country.ipBlock}.${h.isp * 16 + (hash32(`v4:${h.id}:${lease}`) & 15)}.${octets(hash32(`v4b:${h.id}:${lease}`))}`;
}

export function officeIp(o: Office, rng?: Rng): string {
  if (o.campus) return `${o.country.ipBlock}.201.${o.id & 255}.${1 + (rng ? rng.int(0, CAMPUS_EGRESS - 1) : 0)}`;
  return `${o.country.ipBlock}.200.${octets(o.id)}`;
}

export function carrierIp(country: Country, carrier: number, rng: Rng): string {
  return `${country.ipBlock}.${100 + carrier}.${rng.int(0, CARRIER_BLOCKS - 1)}.${rng.int(0, CARRIER_POOL - 1)}`;
}

export function vpnIp(provider: number, rng: Rng): string {
  return `185.${150 + provider}.7.${rng.int(1, VPN_POOL)}`;
}

export function publicWifiIp(country: Country, rng: Rng): string {
  return `${country.ipBlock}.${rng.int(64, 95)}.${rng.int(0, 255)}.${rng.int(1, 254)}`;
}

export interface SessionNetwork {
  kind: NetworkKind;
  ip: string;
}

/** The network a browser's session uses, stable for the whole session. */
export function sessionNetwork(seed: string, b: SimBrowser, session: number, start: number, localHour: number): SessionNetwork {
  const r = new Rng(seed, 'network', b.index, session);
  const device: Device = b.device;
  const user = device.user;
  const day = dayOf(start);
  const weekday = Math.floor(day) % 7 < 5;
  const workHours = weekday && localHour >= 8 && localHour < 18;
  const trip = device.portable ? user.trips.find((t) => day >= t.startDay && day < t.endDay) : undefined;
  if (trip) {
    if (device.cls === 'phone' && r.chance(0.5)) return { kind: 'roaming', ip: carrierIp(user.household.country, user.carrier, r) };
    return { kind: 'public-wifi', ip: publicWifiIp(trip.country, r) };
  }
  const office = device.managedBy;
  if (office) {
    if (device.cls === 'phone') return workHours && r.chance(0.5) ? { kind: 'office', ip: officeIp(office) } : { kind: 'carrier', ip: carrierIp(office.country, user.carrier, r) };
    if (device.cls === 'laptop' && r.chance(0.2)) return { kind: 'home', ip: homeIp(user.household, day, r) };
    return { kind: 'office', ip: officeIp(office, r) };
  }
  if (user.vpnShare > 0 && r.chance(user.vpnShare)) return { kind: 'vpn', ip: vpnIp(user.vpnProvider, r) };
  const country = user.household.country;
  switch (device.cls) {
    case 'phone':
      if (workHours && user.office && r.chance(0.3)) return { kind: 'office', ip: officeIp(user.office) };
      if ((!workHours && r.chance(0.75)) || (workHours && r.chance(0.2))) return { kind: 'home', ip: homeIp(user.household, day, r) };
      return { kind: 'carrier', ip: carrierIp(country, user.carrier, r) };
    case 'laptop':
      if (workHours && user.office && r.chance(0.15)) return { kind: 'office', ip: officeIp(user.office) };
      if (r.chance(0.1)) return { kind: 'public-wifi', ip: publicWifiIp(country, r) };
      return { kind: 'home', ip: homeIp(user.household, day, r) };
    case 'tablet':
      if (r.chance(0.9)) return { kind: 'home', ip: homeIp(user.household, day, r) };
      return { kind: 'public-wifi', ip: publicWifiIp(country, r) };
    case 'desktop':
      return { kind: 'home', ip: homeIp(user.household, day, r) };
  }
}
