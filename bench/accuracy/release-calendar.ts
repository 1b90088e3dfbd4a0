/**
 * When browser and OS versions ship during the simulated period, and which releases change
 * rendering. Day numbers are relative to the simulation start; releases before day 0 exist so
 * that late adopters start on older versions. Which release changes a rendering output is a
 * fixed pseudo-random property of the release (hash of its name), the same in every run.
 */
import { hash32 } from './prng.js';
import type { BrowserKind } from './catalog.js';

export const DAY_MS = 86_400_000;
/** Simulated day 0: Monday 5 January 2026, 00:00 UTC. */
export const SIM_START_MS = Date.UTC(2026, 0, 5);

const RELEASE_INTERVAL_DAYS = 28;

interface Train {
  /** Version number of the release that shipped on `day0`. */
  major0: number;
  day0: number;
  interval: number;
}

/** Four-week release trains (Chrome, Edge, Firefox, Opera, Brave); Samsung Internet ships quarterly. */
const TRAINS: Record<Exclude<BrowserKind, 'safari'>, Train> = {
  chrome: { major0: 143, day0: -12, interval: RELEASE_INTERVAL_DAYS },
  edge: { major0: 143, day0: -8, interval: RELEASE_INTERVAL_DAYS },
  brave: { major0: 143, day0: -10, interval: RELEASE_INTERVAL_DAYS },
  opera: { major0: 126, day0: -3, interval: RELEASE_INTERVAL_DAYS },
  firefox: { major0: 147, day0: -5, interval: RELEASE_INTERVAL_DAYS },
  samsung: { major0: 29, day0: -30, interval: 84 },
};

/** The browser's major version for someone who installs updates `lagDays` after release. */
export function browserMajorAt(kind: Exclude<BrowserKind, 'safari'>, day: number, lagDays: number): number {
  const train = TRAINS[kind];
  return train.major0 + Math.floor((day - lagDays - train.day0) / train.interval);
}

/** The Chromium major a Blink browser's version is built on. */
export function chromiumMajorOf(kind: BrowserKind, major: number): number {
  if (kind === 'opera') return major + 16;
  if (kind === 'samsung') return major + 107;
  return major;
}

/** Apple point releases (iOS, iPadOS, macOS and Safari ship together) every five weeks: 26.1 at day -50. */
export function appleVersionAt(day: number, lagDays: number): { major: number; minor: number } {
  const index = Math.floor((day - lagDays + 50) / 35);
  return { major: 26, minor: Math.max(0, 1 + index) };
}

/** Windows cumulative updates ship monthly (second Tuesday, about day 8 + 28k). */
export function windowsUpdateIndexAt(day: number, lagDays: number): number {
  return Math.floor((day - lagDays - 8) / 28);
}

function changed(kind: string, version: number, probability: number): boolean {
  return hash32(`${kind}:${version}`) / 4294967296 < probability;
}

const epochCache = new Map<string, number>();

/**
 * The release (version number) that last changed the given output at or before `version`.
 * Two versions with the same epoch render that output identically; the epoch only moves
 * forward, at exactly the releases that change the output. Probabilities are assumptions
 * (see README).
 */
export function renderEpoch(output: 'canvas' | 'audio' | 'webgl' | 'os-text', lineage: string, version: number, probability: number): number {
  const key = `${output}:${lineage}:${version}:${probability}`;
  const cached = epochCache.get(key);
  if (cached !== undefined) return cached;
  let epoch = version - 500; // no change in 500 releases: practically impossible at these probabilities
  for (let v = version; v > version - 500; v--) {
    if (changed(`${output}:${lineage}`, v, probability)) {
      epoch = v;
      break;
    }
  }
  epochCache.set(key, epoch);
  return epoch;
}

/** Rendering-change probabilities per release. */
export const CHANGE_PROBABILITY = {
  /** Engine releases changing canvas pixels (Skia / text shaping updates). */
  canvas: 0.15,
  /** Engine releases changing the audio rendering. */
  audio: 0.05,
  /** Engine releases changing WebGL parameters or extensions. */
  webgl: 0.3,
  /** Windows cumulative updates changing font rasterisation. */
  windowsText: 0.08,
  /** Apple point releases changing font rendering / system fonts. */
  appleText: 0.5,
} as const;
