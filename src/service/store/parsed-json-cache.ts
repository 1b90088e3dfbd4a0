/**
 * JSON.parse with a bounded memory of each owner's current text. Identification reads the
 * same visitors over and over (the most recent look-alikes of a popular fingerprint are
 * everybody's candidates), and parsing their profiles (about 2 KB each, a dozen per visit
 * without a token) was the largest single cost of such a visit. A visitor's profile that comes
 * back unchanged (the visitor did not visit in between, or its visit left it as it was) is
 * parsed once.
 *
 * Kept by owner (the visitor ID), not by text: a lookup compares the text with the one kept
 * instead of hashing a 2 KB key, and a changed profile replaces its owner's entry at once
 * rather than staying until it is the oldest.
 *
 * The values are shared between callers, so no caller may change one: the types the callers
 * read them as are read-only (identification/profile.ts VisitorProfile, visitors.ts
 * VisitorRecord.keys), and the decision's tests run on frozen records. They are not frozen
 * here: freezing a parsed profile deeply took as long as parsing it (about 20 µs each, 2 KB).
 */

/** JSON.parse, with null for text that does not parse. */
function parseJsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * Parses `text`, `owner`'s current JSON, like parseJsonOrNull; remembers the latest text of up
 * to `max` owners, forgetting the one parsed longest ago first.
 *
 * `keep: false` for an owner whose JSON the caller is about to change (the visitor a token
 * names, whose visit rewrites its profile): a kept value whose text matches is still used, a
 * text parsed anew is not kept, and the owner's entry goes either way. Kept, it could never
 * match again, would push out an entry that might, and would live long enough for V8 to copy
 * it out of the young generation: in the service benchmark, not keeping the token visitors'
 * profiles shortened garbage-collection pauses by 12-32% in seven alternated pairs
 * (docs/performance.md).
 */
export function createParsedJsonCache(max: number): (owner: string, text: string, keep?: boolean) => unknown {
  const entries = new Map<string, { text: string; value: unknown }>();
  return (owner, text, keep = true) => {
    const known = entries.get(owner);
    if (known?.text === text) {
      if (!keep) entries.delete(owner);
      return known.value;
    }
    // Outdated (or absent): a changed profile replaces its owner's entry.
    entries.delete(owner);
    const value = parseJsonOrNull(text);
    if (keep) {
      if (entries.size >= max) entries.delete(entries.keys().next().value!);
      entries.set(owner, { text, value });
    }
    return value;
  };
}
