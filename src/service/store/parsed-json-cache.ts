/**
 * JSON.parse with a bounded memory of recent texts (bounded-memo.ts). Identification reads the
 * same visitors over and over (the most recent look-alikes of a popular fingerprint are
 * everybody's candidates), and parsing their profiles (about 2 KB each, a dozen per visit
 * without a token) was the largest single cost of such a visit. A text that comes back
 * unchanged (the visitor did not visit in between) is parsed once.
 *
 * The values are shared between callers, so they are frozen (deeply): a caller that tried to
 * change one would throw instead of changing every other caller's copy.
 */
import { boundedMemo } from './bounded-memo.js';

/** Parses like JSON.parse (null for text that does not parse), remembering up to `max` texts. */
export function createParsedJsonCache(max: number): (text: string) => unknown {
  return boundedMemo((text) => {
    try {
      return deepFreeze(JSON.parse(text));
    } catch {
      return null;
    }
  }, max);
}

function deepFreeze(value: unknown): unknown {
  if (value !== null && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
