/**
 * Storage jars (pure): every token carries the id of the jar it was minted for (a visit that
 * came without a valid token gets a fresh jar id; re-issued tokens keep theirs). One browser
 * uses one jar at a time: when it loses its storage the old jar never comes back. So when a jar
 * is used again after a newer jar of the same visitor appeared, two browsers share the visitor
 * ID: a wrong link of identical-looking devices. The newer jar is then revoked (its browser is
 * given a new visitor on its next visit) and the visitor is marked as having a twin, which
 * makes later links without a token to it much less likely (matcher.ts).
 */
export interface JarRecord {
  /** Jar id (the token's `ins` claim). */
  i: string;
  /** Minted at, last used at (ms). */
  first: number;
  last: number;
  /** Minted for a private window: lives beside the normal jar by design, never a conflict. */
  p?: 1;
  /** Revoked: another browser was proven to use this visitor's older jar meanwhile. */
  x?: 1;
}

export const MAX_JARS = 6;

export interface JarObservation {
  jars: JarRecord[];
  /** This visit proved that two browsers share the visitor. */
  conflict: boolean;
  /** This visit's jar was revoked earlier: its browser is not this visitor. */
  revoked: boolean;
}

/** A visit with a valid token of jar `id`. */
export function observeJarUse(jars: readonly JarRecord[], id: string, now: number, privateMode: boolean): JarObservation {
  const own = jars.find((j) => j.i === id);
  if (own?.x) return { jars: [...jars], conflict: false, revoked: true };
  if (!own) return { jars: addJar(jars, id, now, privateMode), conflict: false, revoked: false };
  const newer = own.p ? [] : jars.filter((j) => j.i !== id && !j.p && !j.x && j.first > own.last);
  const updated = jars.map((j) =>
    j === own ? { ...j, last: Math.max(j.last, now) } : newer.includes(j) ? { ...j, x: 1 as const } : j,
  );
  return { jars: updated, conflict: newer.length > 0, revoked: false };
}

/** A jar minted for a visit that came without a valid token. */
export function addJar(jars: readonly JarRecord[], id: string, now: number, privateMode: boolean): JarRecord[] {
  const record: JarRecord = { i: id, first: now, last: now, ...(privateMode ? { p: 1 as const } : {}) };
  // Keep the most recently used jars; revoked ones stay while there is room, to keep refusing them.
  return [record, ...jars.filter((j) => j.i !== id)].sort((a, b) => b.last - a.last).slice(0, MAX_JARS);
}

/**
 * The jars of two visitor IDs taken for one browser (relink.ts): both lists, the most recently
 * used first, at most MAX_JARS (a jar id present in both keeps its wider span).
 */
export function mergeJars(a: readonly JarRecord[], b: readonly JarRecord[]): JarRecord[] {
  const byId = new Map<string, JarRecord>();
  for (const j of [...a, ...b]) {
    const seen = byId.get(j.i);
    byId.set(j.i, seen ? { ...seen, ...j, first: Math.min(seen.first, j.first), last: Math.max(seen.last, j.last) } : j);
  }
  return [...byId.values()].sort((x, y) => y.last - x.last).slice(0, MAX_JARS);
}
