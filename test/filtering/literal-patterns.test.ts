/** Patterns run as a RegExp (literal-patterns.ts) match exactly what RE2 (re2js) matches. */
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { literalPattern } from '../../src/service/filtering/expr/literal-patterns.js';

// Letters with case-folding partners outside ASCII (K: Kelvin sign, ſ: long s, ẞ: capital sharp s), escapable punctuation, metacharacters.
const LETTERS = ['a', 'A', 'k', 'K', '\u212A', 's', 'S', '\u017F', 'ß', '\u1E9E', 'é', 'É', 'σ', 'Σ', 'ς', '/', '-', '.', ' ', '1'];
const PATTERN_PARTS = [...LETTERS, '\\.', '\\/', '\\-', '\\(', '\\$', '|', '(', '(?:', ')', '^', '$', '(?i)', '.', '*', '\\d', '[a]'];

describe('literal patterns', () => {
  it('take the RegExp path for word lists and leave everything else to RE2', () => {
    for (const p of ['(?i)(headless|phantomjs|selenium)', 'curl/', '^Mozilla/5\\.0 \\(X11', 'bot$', 'a|b', '(?i)^(?:x|y)z$', 'a\\-b\\!']) expect(literalPattern(p), p).toBeDefined();
    for (const p of ['a+', 'a.b', '[ab]', '(a)(b)', '((a))', '\\d', 'a{2}', '(?s)a', 'x(?i)y', 'a^', '$a', '(a', '\uD83D\uDE00']) expect(literalPattern(p), p).toBeUndefined();
  });

  it('match what RE2 matches, for random patterns and texts', () => {
    const text = fc.array(fc.constantFrom(...LETTERS, '\n', 'x'), { maxLength: 12 }).map((a) => a.join(''));
    const pattern = fc.array(fc.constantFrom(...PATTERN_PARTS), { maxLength: 8 }).map((a) => a.join(''));
    let compared = 0;
    fc.assert(
      fc.property(pattern, fc.array(text, { minLength: 1, maxLength: 8 }), (p, texts) => {
        let re2: RE2JS;
        try {
          re2 = RE2JS.compile(p);
        } catch {
          return;
        }
        const fast = literalPattern(p);
        if (!fast) return;
        compared++;
        // A text built from the pattern's own letters too, so that matches are common.
        for (const t of [...texts, p.replace(/\\|\(\?i\)|\(\?:|[()^$|]/g, ''), `x${p.replace(/[\\()^$|?:]/g, '').toUpperCase()}x`]) {
          expect(fast.test(t), `${p} on ${JSON.stringify(t)}`).toBe(re2.test(t));
        }
      }),
      { numRuns: 5000 },
    );
    expect(compared).toBeGreaterThan(1000);
  });
});
