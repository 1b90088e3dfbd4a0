/** Storage jars: one browser uses one jar at a time; two jars in use at once are two browsers. */
import { describe, expect, it } from 'vitest';
import { addJar, MAX_JARS, mergeJars, observeJarUse } from '../../src/service/identification/jars.js';

describe('storage jars', () => {
  it('a browser that lost its storage never uses its old jar again: no conflict', () => {
    let jars = addJar([], 'old', 1, false);
    jars = observeJarUse(jars, 'old', 2, false).jars;
    jars = addJar(jars, 'new', 10, false); // storage cleared, linked by signals
    const seen = observeJarUse(jars, 'new', 11, false);
    expect(seen).toMatchObject({ conflict: false, revoked: false });
  });

  it('an older jar used after a newer one appeared proves two browsers; the newer jar is revoked', () => {
    let jars = addJar([], 'alice', 1, false);
    jars = addJar(jars, 'bob', 10, false); // a look-alike was linked to Alice's visitor
    const alice = observeJarUse(jars, 'alice', 12, false);
    expect(alice).toMatchObject({ conflict: true, revoked: false });
    const bob = observeJarUse(alice.jars, 'bob', 13, false);
    expect(bob).toMatchObject({ conflict: false, revoked: true });
    // Alice keeps her visitor.
    expect(observeJarUse(alice.jars, 'alice', 14, false)).toMatchObject({ conflict: false, revoked: false });
  });

  it('a private window beside the normal jar is not a conflict', () => {
    let jars = addJar([], 'normal', 1, false);
    jars = addJar(jars, 'private', 5, true);
    expect(observeJarUse(jars, 'normal', 6, false).conflict).toBe(false);
    expect(observeJarUse(jars, 'private', 7, true).conflict).toBe(false);
  });

  it('keeps a bounded list', () => {
    let jars = addJar([], 'j0', 0, false);
    for (let i = 1; i < 20; i++) jars = addJar(jars, `j${i}`, i, false);
    expect(jars).toHaveLength(MAX_JARS);
    expect(jars[0]!.i).toBe('j19');
  });

  it('the jars of two IDs taken for one browser merge, most recently used first, within MAX_JARS', () => {
    const a = [{ i: 'a1', first: 1, last: 5 }, { i: 'shared', first: 2, last: 3 }];
    const b = [{ i: 'b1', first: 6, last: 9, p: 1 as const }, { i: 'shared', first: 1, last: 7 }];
    expect(mergeJars(a, b)).toEqual([{ i: 'b1', first: 6, last: 9, p: 1 }, { i: 'shared', first: 1, last: 7 }, { i: 'a1', first: 1, last: 5 }]);
    const many = Array.from({ length: MAX_JARS }, (_, n) => ({ i: `j${n}`, first: n, last: n }));
    expect(mergeJars(many, [{ i: 'newest', first: 99, last: 100 }]).map((j) => j.i)).toEqual(['newest', ...many.map((j) => j.i).reverse().slice(0, MAX_JARS - 1)]);
  });
});
