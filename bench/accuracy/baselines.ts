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

/** A short hash of a value's canonical JSON. */
function hashOf(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 20);
}

export function exactHashVisitorId(signals: Signals): string {
  return `h:${hashOf(signals)}`;
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
  return { device: `d:${hashOf(device)}`, stable: `s:${hashOf(stable)}` };
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
 * Browsers by what they showed: the last time each browser showed a key (its signals, alone or
 * with its network) and whether another browser did within ORACLE_WINDOW_MS.
 */
class RecentLooks {
  readonly #lastSeen = new Map<string, Map<number, number>>();

  othersSince(key: string, v: OracleVisit): boolean {
    return [...(this.#lastSeen.get(key) ?? [])].some(([b, t]) => b !== v.browser && v.t - t <= ORACLE_WINDOW_MS);
  }

  saw(key: string, v: OracleVisit): void {
    const browsers = this.#lastSeen.get(key) ?? new Map<number, number>();
    browsers.set(v.browser, v.t);
    this.#lastSeen.set(key, browsers);
  }
}

/**
 * What both limits share: a visit whose storage still holds a token keeps that token's ID (as
 * a cookie would); a visit without one gets its browser's original ID when `apart(v)` says its
 * browser can be told apart, otherwise a new ID, which its storage then keeps. `seen(v)` records
 * each visit after it is answered. Visits come in time order.
 */
function limitVisitorIds<V extends OracleVisit>(visits: readonly V[], prefix: string, apart: (v: V) => boolean, seen: (v: V) => void): string[] {
  const idOfJar = new Map<string, string>();
  const original = new Map<number, string>();
  let minted = 0;
  return visits.map((v) => {
    let id = idOfJar.get(v.jar);
    if (id === undefined) {
      const own = original.get(v.browser);
      id = own !== undefined && apart(v) ? own : `${prefix}${minted++}`;
      if (own === undefined) original.set(v.browser, id);
      idOfJar.set(v.jar, id);
    }
    seen(v);
    return id;
  });
}

/**
 * The distinguishability limit: a visit without its token gets its browser's original ID unless
 * another browser sent exactly the same signals from the same network within
 * ORACLE_WINDOW_MS: then no method could know which of them this is. It never merges two
 * browsers, and it handles drift perfectly, so its re-identification rate is what a matcher
 * could reach at best without guessing between identical-looking browsers.
 */
export function oracleVisitorIds(visits: readonly OracleVisit[]): string[] {
  const looks = new RecentLooks();
  const look = (v: OracleVisit) => `${v.exactId}|${v.network ?? ''}`;
  return limitVisitorIds(visits, 'o:', (v) => !looks.othersSince(look(v), v), (v) => looks.saw(look(v), v));
}

/**
 * The attainable limit: the oracle above, with ambiguity judged across networks, as any
 * identifier sees it (a carrier NAT or a new home network says nothing about which of several
 * identical phones this is). A visit without its token gets its browser's original ID only when
 * its signals (comparableSignalIds: the device's, or its stable ones on a noisy visit) set it
 * apart:
 * - no other browser sent the same signals within ORACLE_WINDOW_MS, on any network, or
 * - its browser was seen on this network within that window, and none of those browsers was.
 * Still an upper bound: it knows the browser behind every visit, so drift, releases and
 * near-identical signals never mislead it, nor does a new browser that looks like a known one.
 */
export function attainableVisitorIds(visits: readonly AttainableVisit[]): string[] {
  const looks = new RecentLooks();
  const seenOn = new Map<string, number>();
  const net = (v: AttainableVisit) => v.network ?? '';
  const apart = (v: AttainableVisit) => {
    const look = v.noisy ? v.signalIds.stable : v.signalIds.device;
    if (!looks.othersSince(look, v)) return true;
    const seenHere = v.t - (seenOn.get(`${v.browser}|${net(v)}`) ?? -Infinity) <= ORACLE_WINDOW_MS;
    return v.network !== null && seenHere && !looks.othersSince(`${look}|${net(v)}`, v);
  };
  const seen = (v: AttainableVisit) => {
    for (const key of [v.signalIds.device, v.signalIds.stable]) {
      looks.saw(key, v);
      looks.saw(`${key}|${net(v)}`, v);
    }
    seenOn.set(`${v.browser}|${net(v)}`, v.t);
  };
  return limitVisitorIds(visits, 'a:', apart, seen);
}
