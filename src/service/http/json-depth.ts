/**
 * Nesting depth of JSON, without recursion. `JSON.parse` copes with any depth, but the code
 * after it does not (schema validation, `JSON.stringify`, recursive mappings overflow the stack
 * a few thousand levels down), so depth is checked on the text before parsing, and values read
 * back from storage are cut at a depth the code can handle.
 */

/** The deepest any JSON body of the service may nest (objects and arrays). */
export const MAX_JSON_DEPTH = 32;

/** True when `text` nests objects or arrays deeper than `max`; brackets inside strings do not count. */
export function jsonDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    }
  }
  return false;
}

/** `value` with everything nested deeper than `max` replaced by null (recursion bounded by `max`). */
export function cutBelowDepth(value: unknown, max: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (max <= 0) return null;
  if (Array.isArray(value)) return value.map((v) => cutBelowDepth(v, max - 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutBelowDepth(v, max - 1)]));
}
