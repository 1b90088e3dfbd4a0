/**
 * JSON.parse with a bounded memory of recent texts. Identification reads the same visitors
 * over and over (the most recent look-alikes of a popular fingerprint are everybody's
 * candidates), and parsing their profiles (about 2 KB each, a dozen per visit without a token)
 * was the largest single cost of such a visit. A text that comes back unchanged (the visitor
 * did not visit in between) is parsed once.
 *
 * The values are shared between callers, so they are frozen (deeply): a caller that tried to
 * change one would throw instead of changing every other caller's copy.
 */

/** Parses like JSON.parse (null for text that does not parse), remembering up to `max` texts. */
export function createParsedJsonCache(max: number): (text: string) => unknown {
  const parsed = new Map<string, unknown>();
  return (text) => {
    if (parsed.has(text)) return parsed.get(text);
    let value: unknown;
    try {
      value = deepFreeze(JSON.parse(text));
    } catch {
      value = null;
    }
    // The oldest text goes first (a Map keeps insertion order).
    if (parsed.size >= max) parsed.delete(parsed.keys().next().value!);
    parsed.set(text, value);
    return value;
  };
}

function deepFreeze(value: unknown): unknown {
  if (value !== null && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
