/**
 * `matches` uses RE2 semantics (re2js: linear time whatever the pattern). re2js is plain
 * JavaScript and slow next to V8's compiled RegExp, and the usual rule pattern is just a list
 * of words: `(?i)(headless|phantomjs|selenium)`. Such a pattern is run as a RegExp here:
 * literal text and `|`, with at most one group (not nested), optional `^` and `$` at the ends
 * and an optional leading `(?i)`. Without quantifiers, classes or a second group, a RegExp
 * tries each alternative once per position (linear in the text, no blow-up), and
 * the matches are RE2's: unanchored search, `^`/`$` at the ends of the text, and with `(?i)`
 * Unicode simple case folding (the `iu` flags). Anything else stays with re2js.
 */

export interface Pattern {
  test(input: string): boolean;
}

/** Punctuation that a backslash makes literal in RE2 (ASCII punctuation). */
const ESCAPABLE = /^[!-/:-@[-`{-~]$/;
/** What must be escaped in a JavaScript pattern with the `u` flag. */
const JS_SYNTAX = /[\\^$.*+?()[\]{}|/]/;

/** A RegExp with RE2's matches for `pattern` (already accepted by RE2), or undefined when it is not this simple. */
export function literalPattern(pattern: string): Pattern | undefined {
  let rest = pattern;
  const caseless = rest.startsWith('(?i)');
  if (caseless) rest = rest.slice(4);
  let source = '';
  let groups = 0;
  let inGroup = false;
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i]!;
    const code = c.charCodeAt(0);
    // Surrogates: re2js reads UTF-16 its own way; leave such patterns to it.
    if (code >= 0xd800 && code <= 0xdfff) return undefined;
    if (c === '\\') {
      const next = rest[i + 1];
      if (next === undefined || !ESCAPABLE.test(next)) return undefined;
      source += JS_SYNTAX.test(next) ? `\\${next}` : next;
      i++;
    } else if (c === '(') {
      if (inGroup || ++groups > 1) return undefined;
      inGroup = true;
      if (rest.startsWith('?:', i + 1)) i += 2;
      else if (rest[i + 1] === '?') return undefined;
      source += '(?:';
    } else if (c === ')') {
      if (!inGroup) return undefined;
      inGroup = false;
      source += ')';
    } else if (c === '|') {
      source += '|';
    } else if ((c === '^' && i === 0) || (c === '$' && i === rest.length - 1)) {
      source += c;
    } else if ('^$.*+?[]{}'.includes(c)) {
      return undefined;
    } else {
      source += JS_SYNTAX.test(c) ? `\\${c}` : c;
    }
  }
  if (inGroup) return undefined;
  return new RegExp(source, caseless ? 'iu' : 'u');
}
