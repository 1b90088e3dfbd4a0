/**
 * Relinking without a database (relink.ts, through decideIdentification): a young visitor ID
 * created while look-alikes existed moves back to the earlier ID that a later visit's evidence
 * singles out, and in every other case the token keeps its ID.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Signals } from '../../src/protocol/index.js';
import { decideIdentification, type IdentificationFacts, type KnownVisitor } from '../../src/service/identification/decide-identification.js';
import { extractFeatures, networkKeys } from '../../src/service/identification/features.js';
import { observeJarUse, type JarRecord } from '../../src/service/identification/jars.js';
import { expectedVisits, MATCH, type KeyCrowding } from '../../src/service/identification/matcher.js';
import { emptyProfile, updateProfile } from '../../src/service/identification/profile.js';
import { decideRelink, explainRelink, relinkable, relinkCheckDue, relinkRuledOut, silenceBits } from '../../src/service/identification/relink.js';
import { deepFreeze, iphone, windowsChrome } from './fixtures.js';

const DAY = 24 * 3600 * 1000;
/** The browser's home network, and a carrier block it used after losing its storage. */
const HOME = 'v4:198.51.100';
const CARRIER = 'v4:100.64.10';
const NOW = 14 * DAY;
const fresh = { visitorId: 'FreshVisitorId000000', jarId: 'freshjar00' };
const SHIPPED = { ...MATCH };

afterEach(() => Object.assign(MATCH, SHIPPED));

/** A laptop whose font list few browsers share. */
const laptop = (): Signals => ({ ...windowsChrome(), fonts: [...windowsChrome().fonts!, 'Relink Test Font'].sort() });

interface VisitorSpec {
  id: string;
  signals: Signals[];
  nets: string[];
  first: number;
  last: number;
  visits?: number;
  jars: JarRecord[];
  contested?: boolean;
}

/** Every key a visitor's visits wrote (its network keys on each of its networks), by visitor ID. */
const writtenKeys = new Map<string, string[]>();

/** A visitor seen with `signals` on `nets` (newest first). */
function visitor(spec: VisitorSpec): KnownVisitor {
  let profile = emptyProfile();
  const last = extractFeatures(spec.signals[spec.signals.length - 1]!);
  for (const s of spec.signals) profile = updateProfile(profile, extractFeatures(s), spec.nets[spec.nets.length - 1]!);
  for (const net of [...spec.nets].reverse()) profile = updateProfile(profile, last, net);
  profile = { ...profile, jars: spec.jars, birth: spec.contested ? 0.3 : 0.95, ...(spec.contested ? { contested: true as const } : {}) };
  writtenKeys.set(spec.id, [...last.blockingKeys, ...spec.nets.flatMap((net) => networkKeys(last, net))]);
  return {
    visitorId: spec.id, firstSeenAt: spec.first, lastSeenAt: spec.last, visitCount: spec.visits ?? spec.signals.length,
    lastTokenAt: spec.last, profile, keys: [...last.blockingKeys, ...networkKeys(last, spec.nets[0]!)], keysRefreshedAt: spec.first,
  };
}

/** The browser's first ID: ten visits at home over nine days, its storage last used on day 10. */
const earlier = (over: Partial<VisitorSpec> = {}) =>
  visitor({ id: 'EarlierVisitor000000', signals: [laptop(), laptop(), laptop()], visits: 10, nets: [HOME], first: 1 * DAY, last: 10 * DAY, jars: [{ i: 'oldjar0000', first: 1 * DAY, last: 10 * DAY }], ...over });

/** The ID its new storage got on day 12, on a carrier network, while the earlier ID was a look-alike. */
const young = (over: Partial<VisitorSpec> = {}) =>
  visitor({ id: 'YoungVisitor00000000', signals: [laptop(), laptop()], nets: [CARRIER], first: 12 * DAY, last: 12.5 * DAY, jars: [{ i: 'newjar0000', first: 12 * DAY, last: 12.5 * DAY }], contested: true, ...over });

/** What the store counts for the visit's keys: the visitors given that wrote each key. */
function crowdingOf(signals: Signals, network: string, visitors: KnownVisitor[]): KeyCrowding {
  const features = extractFeatures(signals);
  const crowding: KeyCrowding = {};
  for (const key of [...features.blockingKeys, ...networkKeys(features, network)]) {
    const kind = key.slice(0, key.indexOf(':'));
    crowding[kind] = (crowding[kind] ?? 0) + visitors.filter((v) => writtenKeys.get(v.visitorId)?.includes(key)).length;
  }
  return crowding;
}

function facts(o: { token: KnownVisitor; jar?: string; candidates: KnownVisitor[]; signals?: Signals; network?: string; now?: number }): IdentificationFacts {
  const signals = o.signals ?? laptop();
  const network = o.network ?? HOME;
  return {
    visit: { features: extractFeatures(signals), network, now: o.now ?? NOW },
    token: { visitor: o.token, jar: o.jar ?? 'newjar0000' },
    candidates: o.candidates,
    crowding: crowdingOf(signals, network, o.candidates),
    fresh,
  };
}

/** The plan keeps the token's ID. */
function expectKept(f: IdentificationFacts) {
  const plan = decideIdentification(f);
  expect(plan).toMatchObject({ kind: 'link', path: 'token' });
  if (plan.kind !== 'link') throw new Error('expected a token link');
  expect(plan.visitor.visitorId).toBe(f.token!.visitor.visitorId);
}

describe('relinking', () => {
  it('moves a young storage back to the earlier ID its home network singles out, with the same jar', () => {
    const y = young();
    const plan = decideIdentification(facts({ token: y, candidates: [earlier(), y] }));
    expect(plan).toMatchObject({ kind: 'relink', path: 'relink', jar: 'newjar0000' });
    if (plan.kind !== 'relink') throw new Error('expected a relink');
    expect(plan.visitor.visitorId).toBe('EarlierVisitor000000');
    expect(plan.absorbed.visitorId).toBe('YoungVisitor00000000');
    // The earlier ID takes over the young ID's jar: its token is re-issued for the same storage.
    expect(plan.profile.jars?.map((j) => j.i).sort()).toEqual(['newjar0000', 'oldjar0000']);
    expect(plan.profile.jars?.find((j) => j.i === 'newjar0000')).toMatchObject({ first: 12 * DAY, last: NOW });
    expect(plan.profile.nets).toContain(HOME);
    expect(plan.confidence.comment).toMatch(/^relinked: this storage's visitor ID YoungVisitor00000000, created while look-alike visitors existed, now matches this earlier visitor: signals match; seen on this network/);
    expect(plan.confidence.score).toBeGreaterThan(0.5);
  });

  it('relinks without changing the visitors it is given (the profile cache shares them between requests)', () => {
    const y = young();
    const input = deepFreeze(facts({ token: y, candidates: [earlier(), y] }));
    const before = JSON.stringify(input);
    expect(decideIdentification(input).kind).toBe('relink');
    expect(JSON.stringify(input)).toBe(before);
  });

  it('a wrong relink is caught by the jars: when the storage of the earlier ID comes back, the relinked one is revoked', () => {
    const y = young();
    const plan = decideIdentification(facts({ token: y, candidates: [earlier(), y] }));
    if (plan.kind !== 'relink') throw new Error('expected a relink');
    const seen = observeJarUse(plan.profile.jars ?? [], 'oldjar0000', NOW + DAY, false);
    expect(seen.conflict).toBe(true);
    expect(seen.jars.find((j) => j.i === 'newjar0000')?.x).toBe(1);
  });

  it('is off with MATCH.relink = 0 (the bench measures it both ways)', () => {
    MATCH.relink = 0;
    const y = young();
    expectKept(facts({ token: y, candidates: [earlier(), y] }));
  });

  it('only reads candidates for a young ID of doubtful origin', () => {
    expect(relinkable(young(), NOW)).toBe(true);
    expect(relinkable(young({ contested: false }), NOW)).toBe(false);
    expect(relinkable(young({ visits: MATCH.relinkMaxVisits + 1 }), NOW)).toBe(false);
    expect(relinkable(young(), 12 * DAY + MATCH.relinkMaxDays * DAY + 1)).toBe(false);
    const twinned = young();
    twinned.profile.twins = 1;
    expect(relinkable(twinned, NOW)).toBe(false);
  });

  it('keeps the token of an established ID: not created among look-alikes, too many visits, too old', () => {
    for (const y of [young({ contested: false }), young({ visits: MATCH.relinkMaxVisits + 1 })]) expectKept(facts({ token: y, candidates: [earlier(), y] }));
    const y = young();
    expectKept(facts({ token: y, candidates: [earlier(), y], now: 12 * DAY + MATCH.relinkMaxDays * DAY + 1 }));
  });

  it('never relinks across incompatible stable signals: a value the young ID has shown that the earlier one never did', () => {
    // The young ID was also seen with 4 cores (the visit itself has 8, like the earlier ID).
    const y = young({ signals: [{ ...laptop(), hardware_concurrency: 4 }, laptop()] });
    expectKept(facts({ token: y, candidates: [earlier(), y] }));
    // Another GPU on the earlier ID: the visit is not even compatible with it.
    const gpu = { ...laptop(), webgl: { ...laptop().webgl!, renderer: 'ANGLE (NVIDIA, NVIDIA GeForce RTX 3060 Direct3D11 vs_5_0 ps_5_0)' } };
    const y2 = young();
    expectKept(facts({ token: y2, candidates: [earlier({ signals: [gpu, gpu] }), y2] }));
    // Nor when the visit contradicts the token's own ID (a token copied to another device).
    const y3 = young();
    expectKept(facts({ token: y3, candidates: [earlier(), y3], signals: { ...laptop(), architecture: 127 } }));
  });

  it('keeps the token when the earlier storage was still in use after the young ID appeared: two browsers', () => {
    const y = young();
    expectKept(facts({ token: y, candidates: [earlier({ last: 12.2 * DAY, jars: [{ i: 'oldjar0000', first: 1 * DAY, last: 12.2 * DAY }] }), y] }));
    // A private window of the earlier ID beside it does not count.
    const privateJar: JarRecord = { i: 'privjar000', first: 12.2 * DAY, last: 12.3 * DAY, p: 1 };
    const withPrivate = earlier({ jars: [{ i: 'oldjar0000', first: 1 * DAY, last: 10 * DAY }, privateJar] });
    expect(decideIdentification(facts({ token: y, candidates: [withPrivate, y] })).kind).toBe('relink');
  });

  it("keeps the token when the earlier ID's browser may live on as another ID, in use since the young ID appeared", () => {
    const y = young();
    // The earlier browser's own storage loss on day 11: a new ID, seen elsewhere until day 13.5.
    const livesOn = visitor({
      id: 'SuccessorVisitor0000', signals: [laptop()], nets: ['v4:203.0.113'], first: 11 * DAY, last: 13.5 * DAY, visits: 3,
      jars: [{ i: 'succjar000', first: 11 * DAY, last: 13.5 * DAY }], contested: true,
    });
    const f = facts({ token: y, candidates: [earlier(), livesOn, y] });
    expect(explainRelink({ visit: f.visit, young: y, jar: 'newjar0000', candidates: f.candidates, crowding: f.crowding })).toEqual({ kept: "target's browser may live on as another ID" });
    expectKept(f);
    // Out of use before the young ID appeared, it explains nothing.
    const ended = visitor({ id: 'SuccessorVisitor0000', signals: [laptop()], nets: ['v4:203.0.113'], first: 11 * DAY, last: 11.5 * DAY, visits: 2, jars: [{ i: 'succjar000', first: 11 * DAY, last: 11.5 * DAY }], contested: true });
    expect(decideIdentification(facts({ token: y, candidates: [earlier(), ended, y] })).kind).toBe('relink');
    // Nor does a private window's ID of the earlier browser: it lives beside the normal storage.
    const privateWindow = visitor({ id: 'SuccessorVisitor0000', signals: [laptop()], nets: ['v4:203.0.113'], first: 11 * DAY, last: 13.5 * DAY, visits: 3, jars: [{ i: 'succjar000', first: 11 * DAY, last: 13.5 * DAY, p: 1 }], contested: true });
    expect(decideIdentification(facts({ token: y, candidates: [earlier(), privateWindow, y] })).kind).toBe('relink');
    MATCH.relinkLivesOn = 0;
    expect(decideIdentification(f).kind).toBe('relink');
  });

  it('decideRelink skips the tokenless decision only when no candidate could be the target: the same answer as explainRelink', () => {
    const y = young();
    const cases: [KnownVisitor[], string][] = [
      [[earlier(), y], 'relinked'],
      [[earlier({ first: 12.1 * DAY }), y], 'target younger'],
      [[earlier({ last: 12.2 * DAY, jars: [{ i: 'oldjar0000', first: 1 * DAY, last: 12.2 * DAY }] }), y], "target's storage still in use"],
      // A younger look-alike beside a possible target: the decision is weighed, and the two tie.
      [[earlier({ id: 'YoungerLookAlike0000', first: 12.1 * DAY }), earlier(), y], 'no earlier ID singled out'],
    ];
    for (const [candidates, expected] of cases) {
      const f = facts({ token: y, candidates });
      const input = { visit: f.visit, young: y, jar: 'newjar0000', candidates: f.candidates, crowding: f.crowding };
      const explained = explainRelink(input);
      const decided = decideRelink(input);
      expect('kept' in explained ? explained.kept : 'relinked').toBe(expected);
      expect(decided?.target.visitorId ?? null).toBe('target' in explained ? explained.target.visitorId : null);
    }
  });

  it('moves only to an earlier ID', () => {
    const y = young();
    expectKept(facts({ token: y, candidates: [earlier({ first: 12.1 * DAY }), y] }));
  });

  it('waits until the earlier ID has been silent for longer than it takes it to come back', () => {
    // About one visit a day: half a day after the young ID appeared, its silence says nothing yet.
    const y = young({ last: 12.2 * DAY });
    expectKept(facts({ token: y, candidates: [earlier(), y], now: 12.5 * DAY }));
    expect(decideIdentification(facts({ token: y, candidates: [earlier(), y], now: 13.5 * DAY })).kind).toBe('relink');
    // An earlier ID seen once has no rate of visits: its silence proves nothing.
    expectKept(facts({ token: y, candidates: [earlier({ visits: 1, signals: [laptop()] }), y] }));
  });

  it('may relink on a network the young ID was already seen on, once the earlier ID stayed silent', () => {
    const y = young({ nets: [HOME, CARRIER] });
    expect(decideIdentification(facts({ token: y, candidates: [earlier(), y] })).kind).toBe('relink');
  });

  it('needs a network few visitors use, not a pool the browser hops through', () => {
    // The browser was seen on another /24 block of the visit's /16 (a carrier NAT pool, a
    // dynamic range), under either ID.
    const y = young({ nets: ['v4:198.51.7'] });
    expectKept(facts({ token: y, candidates: [earlier(), y] }));
    const y1 = young();
    expectKept(facts({ token: y1, candidates: [earlier({ nets: [HOME, 'v4:198.51.9'] }), y1] }));
    // A network many visitors share.
    const y2 = young();
    const f = facts({ token: y2, candidates: [earlier(), y2] });
    expectKept({ ...f, crowding: { ...f.crowding, p: MATCH.sharedNetworkVisitors + 1 } });
  });

  it('needs a clear margin: an identical look-alike on the same home network keeps the token', () => {
    const y = young();
    const sibling = earlier({ id: 'SiblingVisitor000000', first: 2 * DAY, jars: [{ i: 'sibjar0000', first: 2 * DAY, last: 9 * DAY }] });
    expectKept(facts({ token: y, candidates: [earlier(), sibling, y] }));
  });

  it('keeps a revoked jar where it is', () => {
    const y = young({ jars: [{ i: 'newjar0000', first: 12 * DAY, last: 12.5 * DAY, x: 1 }] });
    expectKept(facts({ token: y, candidates: [earlier(), y] }));
  });

  it('without loaded candidates a token visit is decided as before', () => {
    expectKept(facts({ token: young(), candidates: [] }));
  });

  it('decideRelink names nothing for a phone whose home holds a second phone of its kind, the one phone when alone', () => {
    const phone = (): Signals => ({ ...iphone(), fonts: [] });
    const y = visitor({ id: 'YoungPhone0000000000', signals: [phone()], nets: [CARRIER], first: 12 * DAY, last: 12 * DAY, jars: [{ i: 'newjar0000', first: 12 * DAY, last: 12 * DAY }], contested: true });
    const a = visitor({ id: 'PhoneA00000000000000', signals: [phone(), phone()], visits: 9, nets: [HOME], first: 1 * DAY, last: 9 * DAY, jars: [{ i: 'ajar000000', first: 1 * DAY, last: 9 * DAY }] });
    const b = visitor({ id: 'PhoneB00000000000000', signals: [phone(), phone()], visits: 7, nets: [HOME], first: 2 * DAY, last: 8 * DAY, jars: [{ i: 'bjar000000', first: 2 * DAY, last: 8 * DAY }] });
    const f = facts({ token: y, candidates: [a, b, y], signals: phone() });
    expect(decideRelink({ visit: f.visit, young: y, jar: 'newjar0000', candidates: [a, b, y], crowding: f.crowding })).toBeNull();
    // With one phone of its kind at home, that one is singled out.
    const one = facts({ token: y, candidates: [a, y], signals: phone() });
    expect(decideRelink({ visit: one.visit, young: y, jar: 'newjar0000', candidates: [a, y], crowding: one.crowding })?.target.visitorId).toBe('PhoneA00000000000000');
  });

  it("counts the earlier ID's silence as evidence: a household of six relinks once it has stayed away long enough", () => {
    // Six visitors on the home network weaken what being seen there says, and thirty visitors
    // elsewhere share the laptop's fingerprint: the earlier ID alone is no clearer than a browser
    // never seen, until its silence adds up.
    const y = young({ last: 12.2 * DAY });
    const crowded = (now: number) => {
      const f = facts({ token: y, candidates: [earlier(), y], now });
      return { ...f, crowding: { ...f.crowding, p: 6, r: 30, f: 30, l: 30, x: 30 } };
    };
    const early = crowded(13.5 * DAY);
    expect(explainRelink({ visit: early.visit, young: y, jar: 'newjar0000', candidates: [earlier(), y], crowding: early.crowding })).toEqual({ kept: 'no earlier ID singled out' });
    expectKept(early);
    const plan = decideIdentification(crowded(20 * DAY));
    expect(plan.kind).toBe('relink');
    // Without the silence evidence the same visit keeps its token.
    MATCH.relinkSilenceMaxBits = 0;
    expectKept(crowded(20 * DAY));
  });

  it('silenceBits: only for a possible predecessor, growing with the visits it missed, capped', () => {
    const y = young();
    // About 0.6 visits a day (ten visits over nine days, with a prior of one visit a week).
    expect(expectedVisits(earlier(), DAY)).toBeCloseTo(10 / 16, 5);
    expect(silenceBits(earlier(), y, 13 * DAY)).toBeCloseTo(Math.LOG2E * 10 / 16, 5);
    expect(silenceBits(earlier(), y, 60 * DAY)).toBe(MATCH.relinkSilenceMaxBits);
    // Not older than the young ID, or its storage still in use when the young ID appeared.
    expect(silenceBits(earlier({ first: 12.5 * DAY }), y, 20 * DAY)).toBe(0);
    expect(silenceBits(earlier({ jars: [{ i: 'oldjar0000', first: 1 * DAY, last: 12.1 * DAY }] }), y, 20 * DAY)).toBe(0);
    // Seen once: no rate, no evidence; twice in one session: not taken for a daily visitor.
    expect(silenceBits(earlier({ visits: 1, signals: [laptop()] }), y, 20 * DAY)).toBe(0);
    const twice = earlier({ visits: 2, signals: [laptop(), laptop()], first: 5 * DAY, last: 5 * DAY });
    expect(expectedVisits(twice, DAY)).toBeCloseTo(2 / 7, 5);
  });

  it('weighs a young ID again only when its evidence changed or a while has passed', () => {
    const y = young();
    const keys = y.keys;
    // Never weighed (an ID from before the record existed): weighed.
    expect(relinkCheckDue(y, keys, NOW)).toBe(true);
    const weighed = { ...y, profile: { ...y.profile, relinkCheckedAt: NOW } };
    // The same lookup keys as its last visit, within MATCH.relinkRecheckHours: the same answer, not read again.
    expect(relinkCheckDue(weighed, [...keys].reverse(), NOW + 10 * 60 * 1000)).toBe(false);
    // Another network (or changed signals), or enough time: weighed again.
    const atHome = [...extractFeatures(laptop()).blockingKeys, ...networkKeys(extractFeatures(laptop()), HOME)];
    expect(relinkCheckDue(weighed, atHome, NOW + 10 * 60 * 1000)).toBe(true);
    expect(relinkCheckDue(weighed, keys.slice(1), NOW + 10 * 60 * 1000)).toBe(true);
    expect(relinkCheckDue(weighed, keys, NOW + MATCH.relinkRecheckHours * 3600 * 1000)).toBe(true);
  });

  it('records when a young ID was weighed: at its contested creation and at a token visit that kept it', () => {
    const y = young();
    const kept = decideIdentification(facts({ token: y, candidates: [earlier(), y], now: 12.6 * DAY }));
    expect(kept).toMatchObject({ kind: 'link', path: 'token' });
    expect(kept.profile.relinkCheckedAt).toBe(12.6 * DAY);
    // A token visit whose candidates were not read keeps the earlier record.
    const weighed = { ...y, profile: { ...y.profile, relinkCheckedAt: 12.6 * DAY } };
    expect(decideIdentification(facts({ token: weighed, candidates: [], now: 12.7 * DAY })).profile.relinkCheckedAt).toBe(12.6 * DAY);
    // A new ID created while look-alikes existed weighed them already.
    const created = decideIdentification({ ...facts({ token: y, candidates: [earlier()], network: CARRIER }), token: null });
    expect(created).toMatchObject({ kind: 'create' });
    expect(created.profile.contested).toBe(true);
    expect(created.profile.relinkCheckedAt).toBe(NOW);
  });

  it('rules a visit out before reading candidates when no candidate could change the answer', () => {
    const visit = facts({ token: young(), candidates: [] }).visit;
    expect(relinkRuledOut(visit, young(), 'newjar0000')).toBeNull();
    expect(relinkRuledOut(visit, young({ contested: false }), 'newjar0000')).toBe('not relinkable');
    expect(relinkRuledOut(visit, young({ jars: [{ i: 'newjar0000', first: 12 * DAY, last: 12.5 * DAY, x: 1 }] }), 'newjar0000')).toBe('jar revoked');
    expect(relinkRuledOut(facts({ token: young(), candidates: [], signals: iphone() }).visit, young(), 'newjar0000')).toBe('visit incompatible with the young ID');
    // The young ID hopped through another block of the visit's /16: a pool, whatever the candidates.
    const hopper = young({ nets: ['v4:198.51.7'] });
    expect(relinkRuledOut(visit, hopper, 'newjar0000')).toBe('a pool network');
    expect(explainRelink({ visit, young: hopper, jar: 'newjar0000', candidates: [earlier(), hopper], crowding: {} })).toEqual({ kept: 'a pool network' });
  });
});
