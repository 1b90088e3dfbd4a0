/**
 * The reference identifiers the report compares the service with, computed on the same
 * visit stream without the service:
 * - exact hash: the visitor ID is a hash of every collected signal, as open-source
 *   fingerprinting libraries do; any change of any signal gives a new ID and identical devices
 *   share one.
 * - cookie only: the visitor ID lives in first-party storage; it survives as long as the
 *   storage does and never joins two browsers.
 * - distinguishability limit: an oracle that knows which browser made every visit, but, like
 *   any identifier once storage is gone, refuses to tell apart browsers that look identical
 *   from the same network (see oracleVisitorIds).
 * - attainable limit: the same oracle, judging ambiguity across networks as an identifier sees
 *   it (see attainableVisitorIds).
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

/**
 * What the attainable limit compares between browsers (hashes like exactHashVisitorId):
 * - `device`: the signals without what a visit's moment sets rather than the device (the
 *   private-window flag, the light or dark colour scheme);
 * - `stable`: also without the components that anti-fingerprinting noise randomises (Brave's
 *   farbling, Safari's and Firefox's private windows), what stays comparable on a noisy visit.
 */
export function comparableSignalIds(signals: Signals): { device: string; stable: string } {
  const { incognito: _incognito, color_scheme: _scheme, ...device } = signals;
  const { canvas, webgl, audio: _audio, hardware_concurrency: _cores, ...rest } = device;
  const stable = { ...rest, canvas: canvas && { winding: canvas.winding }, webgl: webgl && { ...webgl, params: undefined } };
  const hash = (value: unknown) => createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 20);
  return { device: `d:${hash(device)}`, stable: `s:${hash(stable)}` };
}

/** The storage jar is the cookie: its first visit mints the ID, its later visits read it back. */
export function cookieOnlyVisitorId(jar: string): string {
  return `c:${jar}`;
}

/** What the oracle sees of a visit, in time order. */
export interface OracleVisit {
  browser: number;
  t: number;
  /** Storage jar: a visit whose jar was used before carries that jar's token. */
  jar: string;
  /** exactHashVisitorId() of the visit's signals. */
  exactId: string;
  /** The client network (/24 or /64), or null. */
  network: string | null;
}

/** What the attainable limit sees of a visit besides what the oracle does. */
export interface AttainableVisit extends OracleVisit {
  /** comparableSignalIds() of the visit's signals. */
  signalIds: { device: string; stable: string };
  /** The visit's signals carry anti-fingerprinting noise: only its stable signals compare. */
  noisy: boolean;
}

/** Identical signals from the same network this recently make two browsers indistinguishable. */
export const ORACLE_WINDOW_MS = 30 * 24 * 3600 * 1000;

/**
 * The distinguishability limit. A visit whose storage still holds a token keeps that token's
 * ID (as a cookie would). A visit without one gets its browser's original ID, unless another
 * browser sent exactly the same signals from the same network within ORACLE_WINDOW_MS: then no
 * method could know which of them this is, and it gets a new ID, which its storage then keeps.
 * It never merges two browsers, and it handles drift perfectly, so its re-identification rate
 * is what a matcher could reach at best without guessing between identical-looking browsers.
 */
export function oracleVisitorIds(visits: readonly OracleVisit[]): string[] {
  const idOfJar = new Map<string, string>();
  const original = new Map<number, string>();
  const lastSeen = new Map<string, Map<number, number>>();
  let minted = 0;
  return visits.map((v) => {
    const look = `${v.exactId}|${v.network ?? ''}`;
    const others = lastSeen.get(look) ?? new Map<number, number>();
    let id = idOfJar.get(v.jar);
    if (id === undefined) {
      const own = original.get(v.browser);
      const ambiguous = [...others].some(([b, t]) => b !== v.browser && v.t - t <= ORACLE_WINDOW_MS);
      id = own !== undefined && !ambiguous ? own : `o:${minted++}`;
      if (own === undefined) original.set(v.browser, id);
      idOfJar.set(v.jar, id);
    }
    others.set(v.browser, v.t);
    lastSeen.set(look, others);
    return id;
  });
}

/**
 * The attainable limit: the oracle above, with ambiguity judged across networks, as any
 * identifier sees it (a carrier NAT or a new home network says nothing about which of several
 * identical phones this is). A visit whose storage still holds a token keeps that token's ID; a
 * visit without one gets its browser's original ID only when its signals (comparableSignalIds:
 * the device's, or its stable ones on a noisy visit) set it apart:
 * - no other browser sent the same signals within ORACLE_WINDOW_MS, on any network, or
 * - its browser was seen on this network within that window, and none of those browsers was.
 * Otherwise it gets a new ID, which its storage then keeps. Still an upper bound: it knows the
 * browser behind every visit, so drift, releases and near-identical signals never mislead it.
 */
export function attainableVisitorIds(visits: readonly AttainableVisit[]): string[] {
  const idOfJar = new Map<string, string>();
  const original = new Map<number, string>();
  // Last visit time per browser, by signals (device or stable), alone or with the network.
  const lastSeen = new Map<string, Map<number, number>>();
  const seenOn = new Map<string, number>();
  let minted = 0;
  const recentOthers = (key: string, v: AttainableVisit) =>
    [...(lastSeen.get(key) ?? [])].some(([b, t]) => b !== v.browser && v.t - t <= ORACLE_WINDOW_MS);
  const note = (key: string, v: AttainableVisit) => {
    const browsers = lastSeen.get(key) ?? new Map<number, number>();
    browsers.set(v.browser, v.t);
    lastSeen.set(key, browsers);
  };
  return visits.map((v) => {
    const net = v.network ?? '';
    const look = v.noisy ? v.signalIds.stable : v.signalIds.device;
    let id = idOfJar.get(v.jar);
    if (id === undefined) {
      const own = original.get(v.browser);
      const seenHere = v.t - (seenOn.get(`${v.browser}|${net}`) ?? -Infinity) <= ORACLE_WINDOW_MS;
      const apart = !recentOthers(look, v) || (v.network !== null && seenHere && !recentOthers(`${look}|${net}`, v));
      id = own !== undefined && apart ? own : `a:${minted++}`;
      if (own === undefined) original.set(v.browser, id);
      idOfJar.set(v.jar, id);
    }
    for (const key of [v.signalIds.device, v.signalIds.stable]) {
      note(key, v);
      note(`${key}|${net}`, v);
    }
    seenOn.set(`${v.browser}|${net}`, v.t);
    return id;
  });
}
