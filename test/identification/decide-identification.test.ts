/**
 * The identification decision without a database: from loaded facts (the token's visitor, or
 * candidates) to the plan of what to write and answer.
 */
import { describe, expect, it } from 'vitest';
import type { Signals } from '../../src/protocol/index.js';
import { decideIdentification, type IdentificationFacts, type KnownVisitor } from '../../src/service/identification/decide-identification.js';
import { extractFeatures } from '../../src/service/identification/features.js';
import { ID_ORIGIN_MODEL, ID_ORIGIN_MODEL_WITH_COOKIE, idOriginProbability } from '../../src/service/identification/id-origin.js';
import { addJar } from '../../src/service/identification/jars.js';
import { MATCH_CONFIDENCE, type VisitContext } from '../../src/service/identification/matcher.js';
import { emptyProfile, updateProfile } from '../../src/service/identification/profile.js';
import { deepFreeze, iphone, macSafari, upgradeChrome, windowsChrome } from './fixtures.js';

const DAY = 24 * 3600 * 1000;
const NOW = 30 * DAY;
const NETWORK = 'v4:203.0.113';
const fresh = { visitorId: 'FreshVisitorId000000', jarId: 'freshjar00' };

function visitOf(signals: Signals, now = NOW): VisitContext {
  return { features: extractFeatures(signals), network: NETWORK, now };
}

/** A visitor seen on earlier visits with these signals, holding jar `jar`. */
function known(id: string, visits: Signals[], jar = 'jar0000000'): KnownVisitor {
  let profile = emptyProfile();
  for (const s of visits) profile = updateProfile(profile, extractFeatures(s), NETWORK);
  profile = { ...profile, jars: addJar([], jar, 1 * DAY, false), birth: 0.95 };
  return { visitorId: id, firstSeenAt: 1 * DAY, lastSeenAt: 20 * DAY, visitCount: visits.length, lastTokenAt: 20 * DAY, profile, keys: [], keysRefreshedAt: 1 * DAY };
}

const facts = (over: Partial<IdentificationFacts>): IdentificationFacts => ({
  visit: visitOf(windowsChrome()),
  token: null,
  candidates: [],
  crowding: {},
  fresh,
  ...over,
});

describe('decideIdentification', () => {
  it('a token visit links to the token visitor, keeps its jar and records the token', () => {
    const visitor = known('TokenVisitor00000000', [windowsChrome(), windowsChrome()]);
    const plan = decideIdentification(facts({ token: { visitor, jar: 'jar0000000' } }));
    expect(plan).toMatchObject({ kind: 'link', withToken: true, jar: 'jar0000000', path: 'token' });
    if (plan.kind !== 'link') throw new Error('expected a link');
    expect(plan.visitor.visitorId).toBe('TokenVisitor00000000');
    expect(plan.confidence.score).toBeGreaterThan(0.9);
    expect(plan.profile.jars?.find((j) => j.i === 'jar0000000')?.last).toBe(NOW);
  });

  it('a token of an older format (no jar) gets a fresh jar on its visitor', () => {
    const visitor = known('TokenVisitor00000000', [windowsChrome()]);
    const plan = decideIdentification(facts({ token: { visitor } }));
    expect(plan).toMatchObject({ kind: 'link', jar: fresh.jarId, path: 'token' });
  });

  it('a token whose jar was revoked keeps its ID (a valid token is never re-assigned), with a low confidence that says why', () => {
    const visitor = known('TokenVisitor00000000', [windowsChrome()]);
    visitor.profile.jars = [{ i: 'stolenjar0', first: 2 * DAY, last: 3 * DAY, x: 1 }, ...(visitor.profile.jars ?? [])];
    const plan = decideIdentification(facts({ token: { visitor, jar: 'stolenjar0' } }));
    expect(plan).toMatchObject({ kind: 'link', withToken: true, jar: 'stolenjar0', path: 'token' });
    if (plan.kind !== 'link') throw new Error('expected a link');
    expect(plan.visitor.visitorId).toBe('TokenVisitor00000000');
    expect(plan.confidence.score).toBe(MATCH_CONFIDENCE.revokedJar);
    expect(plan.confidence.comment).toMatch(/share its visitor ID with another browser/);
  });

  it('a valid token keeps its ID whatever the signals say, even against a better-matching candidate', () => {
    const visitor = known('TokenVisitor00000000', [macSafari()]);
    const lookalike = known('LookAlike00000000000', [windowsChrome()]);
    const plan = decideIdentification(facts({ token: { visitor, jar: 'jar0000000' }, candidates: [lookalike] }));
    expect(plan.kind).toBe('link');
    if (plan.kind !== 'link') throw new Error('expected a link');
    expect(plan.visitor.visitorId).toBe('TokenVisitor00000000');
  });

  it('without a token, a drifted browser links to its candidate with a fresh jar and no token record', () => {
    const visitor = known('KnownChrome000000000', [windowsChrome(), windowsChrome()]);
    const other = known('KnownSafari000000000', [macSafari()]);
    const plan = decideIdentification(facts({ visit: visitOf(upgradeChrome(windowsChrome())), candidates: [other, visitor] }));
    expect(plan).toMatchObject({ kind: 'link', withToken: false, jar: fresh.jarId });
    if (plan.kind !== 'link') throw new Error('expected a link');
    expect(plan.visitor.visitorId).toBe('KnownChrome000000000');
    expect(['exact', 'fuzzy', 'cluster']).toContain(plan.path);
    expect(plan.profile.jars?.map((j) => j.i)).toContain(fresh.jarId);
  });

  it('without a token or a matching candidate, a new visitor is planned with its birth confidence', () => {
    const plan = decideIdentification(facts({ visit: visitOf(iphone()), candidates: [known('KnownSafari000000000', [macSafari()])] }));
    expect(plan).toMatchObject({ kind: 'create', visitorId: fresh.visitorId, jar: fresh.jarId, path: 'new' });
    expect(plan.profile.birth).toBe(plan.confidence.score);
  });

  it('never changes the visitors it is given, which the profile cache shares between requests', () => {
    const tokenVisitor = () => known('TokenVisitor00000000', [windowsChrome(), upgradeChrome(windowsChrome())]);
    const chrome = () => known('KnownChrome000000000', [windowsChrome(), windowsChrome()]);
    const safari = () => known('KnownSafari000000000', [macSafari()]);
    const scenarios: IdentificationFacts[] = [
      // A token visit: its jar's last use, the profile's drift.
      facts({ visit: visitOf(upgradeChrome(windowsChrome())), token: { visitor: tokenVisitor(), jar: 'jar0000000' } }),
      // A token of another jar used after this one: the jars' conflict and revocation.
      facts({ token: { visitor: { ...tokenVisitor(), profile: { ...tokenVisitor().profile, jars: [{ i: 'oldjar0000', first: 0, last: DAY }, { i: 'jar0000000', first: 2 * DAY, last: 3 * DAY }] } }, jar: 'oldjar0000' } }),
      // Without a token: a link to a drifted candidate, and a new visitor beside look-alikes.
      facts({ visit: visitOf(upgradeChrome(windowsChrome())), candidates: [safari(), chrome()] }),
      facts({ visit: visitOf(iphone()), candidates: [safari(), chrome()], crowding: { d: 3 } }),
    ];
    for (const input of scenarios) {
      deepFreeze(input);
      const before = JSON.stringify(input);
      expect(() => decideIdentification(input)).not.toThrow();
      expect(JSON.stringify(input)).toBe(before);
    }
  });

  it("answers for an ID created among look-alikes by the cookie's model when the service's cookie can keep the token", () => {
    const visitor = known('ContestedVisitor0000', [windowsChrome(), windowsChrome(), windowsChrome()]);
    visitor.profile = { ...visitor.profile, contested: true, birth: 0.4 };
    const scoreWith = (tokenCookie: boolean) => {
      const plan = decideIdentification(facts({ visit: { ...visitOf(windowsChrome()), tokenCookie }, token: { visitor, jar: 'jar0000000' } }));
      expect(plan).toMatchObject({ kind: 'link', path: 'token', visitor: { visitorId: 'ContestedVisitor0000' } });
      return plan.confidence.score;
    };
    const models = [ID_ORIGIN_MODEL, ID_ORIGIN_MODEL_WITH_COOKIE].map((m) => idOriginProbability(0.4, 3, false, m));
    // The two models differ here, so that the test tells which one answered.
    expect(Math.abs(models[0]! - models[1]!)).toBeGreaterThan(0.05);
    // The same token visit, judged alike: only the model differs.
    expect(scoreWith(false) / models[0]!).toBeCloseTo(scoreWith(true) / models[1]!, 2);
    // Creating a contested ID: the creating answer by the same model.
    const lookalikes = [known('LookAlikeOne00000000', [iphone()]), known('LookAlikeTwo00000000', [iphone()])];
    const created = (tokenCookie: boolean) =>
      decideIdentification(facts({ visit: { ...visitOf(iphone()), network: 'v4:198.51.100', tokenCookie }, candidates: lookalikes, crowding: { d: 40 } }));
    const [without, withCookie] = [created(false), created(true)];
    if (without.kind !== 'create' || withCookie.kind !== 'create' || !without.profile.contested) throw new Error('expected a contested new visitor');
    const birth = without.profile.birth!;
    expect(without.confidence.score).toBeCloseTo(idOriginProbability(birth, 0, true, ID_ORIGIN_MODEL), 3);
    expect(withCookie.confidence.score).toBeCloseTo(idOriginProbability(birth, 0, true, ID_ORIGIN_MODEL_WITH_COOKIE), 3);
  });

  it('is pure: the same facts give the same plan and the facts are left as they were', () => {
    const visitor = known('TokenVisitor00000000', [windowsChrome()]);
    const input = facts({ token: { visitor, jar: 'jar0000000' } });
    const before = JSON.stringify(input);
    expect(decideIdentification(input)).toEqual(decideIdentification(input));
    expect(JSON.stringify(input)).toBe(before);
  });
});
