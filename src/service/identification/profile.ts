/**
 * A visitor's profile (pure): the recent values of every component, newest first, so that
 * drift accumulates (an upgraded browser matches its new user agent from then on) and a
 * browser alternating between two monitors or two networks keeps matching both.
 */
import { COMPONENTS, COMPONENT_NAMES, type ComponentName } from './components.js';
import type { Features } from './features.js';
import type { JarRecord } from './jars.js';

export interface VisitorProfile {
  v: 1;
  /** Recent values per component, newest first. */
  c: Readonly<Partial<Record<ComponentName, readonly string[]>>>;
  /** Recent font sets, newest first. */
  fonts: readonly (readonly string[])[];
  /** Recent network prefixes (network.ts), newest first. */
  nets: readonly string[];
  /** Storage jars seen with this visitor's tokens (jars.ts). */
  jars?: readonly Readonly<JarRecord>[];
  /** Times two browsers were proven to share this visitor ID. */
  twins?: number;
  /**
   * Confidence that the visitor was a browser never seen before when it was created (below 1
   * when look-alikes existed: it may be a known browser that lost its storage). Every later
   * answer with this ID inherits it (id-origin.ts).
   */
  birth?: number;
  /** Created while look-alike visitors existed: how sure its answers are also depends on the visits the ID lasted (id-origin.ts). */
  contested?: true;
  /**
   * When relinking last weighed this young ID (or its creation did, among the same
   * look-alikes), ms; relink.ts `relinkCheckDue`.
   */
  relinkCheckedAt?: number;
}

const HISTORY = { hard: 2, stable: 3, drift: 4 } as const;
const MAX_FONT_SETS = 2;
const MAX_NETS = 8;

const pushRecent = <T>(history: readonly T[], value: T, max: number, same: (a: T, b: T) => boolean = Object.is): T[] =>
  [value, ...history.filter((h) => !same(h, value))].slice(0, max);

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

export function emptyProfile(): VisitorProfile {
  return { v: 1, c: {}, fonts: [], nets: [] };
}

/** The profile after one more visit. */
export function updateProfile(
  profile: VisitorProfile,
  features: Features,
  network: string | null,
): VisitorProfile {
  const c: Partial<Record<ComponentName, readonly string[]>> = { ...profile.c };
  for (const name of COMPONENT_NAMES) {
    const value = features.values[name];
    if (value !== undefined) c[name] = pushRecent(c[name] ?? [], value, HISTORY[COMPONENTS[name].kind]);
  }
  return {
    ...profile,
    v: 1,
    c,
    fonts: features.fonts ? pushRecent(profile.fonts, features.fonts, MAX_FONT_SETS, sameList) : profile.fonts,
    nets: network ? pushRecent(profile.nets, network, MAX_NETS) : profile.nets,
  };
}

/** Reads a stored profile; anything unreadable counts as empty rather than failing a visit. */
export function parseProfile(json: string): VisitorProfile {
  try {
    return profileFrom(JSON.parse(json));
  } catch {
    return emptyProfile();
  }
}

/** The same from JSON already parsed (the visitor store parses a row's JSON once). */
export function profileFrom(value: unknown): VisitorProfile {
  const p = value as Partial<VisitorProfile> | null;
  if (!p || typeof p !== 'object' || p.v !== 1 || typeof p.c !== 'object' || p.c === null) return emptyProfile();
  return {
    v: 1,
    c: p.c,
    fonts: Array.isArray(p.fonts) ? p.fonts : [],
    nets: Array.isArray(p.nets) ? p.nets : [],
    ...(Array.isArray(p.jars) ? { jars: p.jars } : {}),
    ...(typeof p.twins === 'number' ? { twins: p.twins } : {}),
    ...(typeof p.birth === 'number' ? { birth: p.birth } : {}),
    ...(p.contested === true ? { contested: true as const } : {}),
    ...(typeof p.relinkCheckedAt === 'number' ? { relinkCheckedAt: p.relinkCheckedAt } : {}),
  };
}
