/** The pure matcher: scoring, drift tolerance, identical devices, tokens judged against signals. */
import { describe, expect, it } from 'vitest';
import type { Signals } from '../../src/protocol/index.js';
import { extractFeatures, isDowngrade, networkKeys, normaliseRenderer, stripVersions } from '../../src/service/identification/features.js';
import {
  decideWithoutToken,
  MATCH,
  judgeTokenVisit,
  scoreCandidate,
  type Candidate,
  type VisitContext,
} from '../../src/service/identification/matcher.js';
import { inWiderNetwork, networkPrefix, widerNetwork } from '../../src/service/identification/network.js';
import { emptyProfile, parseProfile, updateProfile } from '../../src/service/identification/profile.js';
import { editLanguages, externalMonitor, installFont, iphone, macSafari, newRelease, osUpdate, travel, upgradeChrome, windowsChrome } from './fixtures.js';

const DAY = 86_400_000;

function candidate(id: string, visits: Signals[], opts: { network?: string; firstSeenAt?: number; lastTokenAt?: number | null} = {}): Candidate {
  let profile = emptyProfile();
  for (const s of visits) profile = updateProfile(profile, extractFeatures(s), opts.network ?? 'v4:203.0.113');
  return { visitorId: id, firstSeenAt: opts.firstSeenAt ?? 0, lastSeenAt: 10 * DAY, lastTokenAt: opts.lastTokenAt ?? null, profile };
}

function visit(signals: Signals, network: string | null = 'v4:203.0.113'): VisitContext {
  return { features: extractFeatures(signals), network, now: 20 * DAY };
}

// A desktop with a personal font set: a high-entropy fingerprint, as most desktops are.
const desktop = (): Signals => ({ ...windowsChrome(), fonts: [...windowsChrome().fonts!, 'Fira Code', 'Roboto Slab', 'Source Serif'].sort() });

describe('normalisation', () => {
  it('strips versions from user agents and drivers from WebGL renderers', () => {
    const ua120 = windowsChrome().user_agent!;
    expect(stripVersions(ua120)).toBe(stripVersions(upgradeChrome(windowsChrome()).user_agent!));
    expect(stripVersions(ua120)).not.toBe(stripVersions(macSafari().user_agent!));
    expect(normaliseRenderer('ANGLE (Intel, Intel(R) UHD Graphics 620 Direct3D11 vs_5_0 ps_5_0, D3D11-27.20.100.8681)')).toBe(
      normaliseRenderer('ANGLE (Intel, Intel(R) UHD Graphics 620 Direct3D11 vs_5_0 ps_5_0, D3D11-31.0.101.2111)'),
    );
  });

  it('recognises a downgrade of the same browser, never across browsers', () => {
    const v120 = windowsChrome().user_agent!;
    const v121 = upgradeChrome(windowsChrome()).user_agent!;
    expect(isDowngrade(v120, v121)).toBe(true);
    expect(isDowngrade(v121, v120)).toBe(false);
    expect(isDowngrade(v120, macSafari().user_agent!)).toBe(false);
    expect(isDowngrade(iphone().user_agent!, osUpdate(iphone()).user_agent!)).toBe(true);
  });

  it('coarsens networks to /24 and /64, and to the ISP block /16 and /32', () => {
    expect(networkPrefix('203.0.113.77')).toBe('v4:203.0.113');
    expect(networkPrefix('::ffff:203.0.113.9')).toBe('v4:203.0.113');
    expect(networkPrefix('2001:db8:0:42::1')).toBe('v6:2001:db8:0:42');
    expect(networkPrefix('2001:0db8:0000:0042:abcd::7')).toBe('v6:2001:db8:0:42');
    expect(networkPrefix('not an ip')).toBeNull();
    expect(widerNetwork('v4:203.0.113')).toBe('v4:203.0');
    expect(widerNetwork('v6:2001:db8:0:42')).toBe('v6:2001:db8');
    expect(inWiderNetwork('v4:203.0.7', 'v4:203.0')).toBe(true);
    expect(inWiderNetwork('v4:203.5.7', 'v4:203.0')).toBe(false);
    // A block's text can begin another block's: 203.0 is not 203.01, nor 2001:db8 2001:db80.
    expect(inWiderNetwork('v4:203.01.7', 'v4:203.0')).toBe(false);
    expect(inWiderNetwork('v6:2001:db8:1:2', 'v6:2001:db8')).toBe(true);
    expect(inWiderNetwork('v6:2001:db80:1:2', 'v6:2001:db8')).toBe(false);
    expect(inWiderNetwork('v4:203.0.7', 'v6:2001:db8')).toBe(false);
  });

  it('reads hostile signals without throwing', () => {
    const hostile = { user_agent: 42, screen: 'wide', fonts: [1, null, 'Arial'], webgl: null, canvas: { geometry: {} } } as unknown as Signals;
    const f = extractFeatures(hostile);
    expect(f.fonts).toEqual(['Arial']);
    expect(f.values.user_agent).toBeUndefined();
    expect(extractFeatures({}).blockingKeys).toHaveLength(1);
  });

  it('gives identical signals identical hashes and keys, and another device other keys', () => {
    expect(extractFeatures(windowsChrome())).toEqual(extractFeatures(windowsChrome()));
    const a = new Set(extractFeatures(windowsChrome()).blockingKeys);
    expect(extractFeatures(macSafari()).blockingKeys.filter((k) => a.has(k))).toHaveLength(0);
    expect(networkKeys(extractFeatures(iphone()), 'v4:1.2.3')).not.toEqual(networkKeys(extractFeatures(iphone()), 'v4:1.2.4'));
  });

  it('keeps a drifted browser on at least one of its blocking keys', () => {
    const base = new Set(extractFeatures(desktop()).blockingKeys);
    for (const drift of [upgradeChrome, osUpdate, externalMonitor, installFont, travel, editLanguages]) {
      const shared = extractFeatures(drift(desktop())).blockingKeys.filter((k) => base.has(k) && !k.startsWith('x:'));
      expect(shared.length, drift.name).toBeGreaterThanOrEqual(2);
    }
  });

  it('keeps a browser after a release that changed every rendering signal at once on its device key', () => {
    const before = extractFeatures(desktop()).blockingKeys;
    const after = extractFeatures(newRelease(desktop())).blockingKeys;
    // Besides the hardware-only keys (h:, f:), which identical devices crowd, only the device key
    // is left (test/store/candidate-read.test.ts reads such a browser from a crowded store).
    expect(after.filter((k) => before.includes(k) && !k.startsWith('h:') && !k.startsWith('f:'))).toEqual([
      before.find((k) => k.startsWith('d:')),
    ]);
    // The key holds the user's own settings too: the same machine elsewhere in the world is another device for it.
    expect(extractFeatures(travel(desktop())).blockingKeys.filter((k) => k.startsWith('d:'))).not.toEqual(before.filter((k) => k.startsWith('d:')));
  });
});

describe('drift of one browser keeps its visitor (no token)', () => {
  const known = candidate('desk', [desktop()]);
  // The hardware class is common, the font set is this visitor's alone: a rare fingerprint.
  const rareFonts = { h: 5, r: 5, f: 1, l: 1 };
  const drifts: [string, (s: Signals) => Signals][] = [
    ['browser upgrade', upgradeChrome],
    ['OS update', osUpdate],
    ['external monitor', externalMonitor],
    ['new font', (s) => installFont(s)],
    ['timezone while travelling', travel],
    ['language edit', editLanguages],
    ['everything at once', (s) => editLanguages(travel(installFont(externalMonitor(osUpdate(upgradeChrome(s))))))],
  ];
  for (const [name, drift] of drifts) {
    it(name, () => {
      const onHomeNetwork = decideWithoutToken(visit(drift(desktop())), [known], { p: 1, n: 1 });
      expect(onHomeNetwork).toMatchObject({ kind: 'link', visitorId: 'desk' });
      // Without a token, from an unrelated network, signals alone do not link (tuned on
      // bench/accuracy, where such links were wrong more often than right): a new visitor,
      // whose confidence says it is probably the known one.
      const elsewhere = decideWithoutToken(visit(drift(desktop()), 'v4:198.51.100'), [known], rareFonts);
      expect(elsewhere).toMatchObject({ kind: 'new' });
      expect(elsewhere.confidence.score).toBeLessThan(0.9);
    });
  }

  it('an exact match is reported as such, with high confidence', () => {
    const d = decideWithoutToken(visit(desktop()), [known], { p: 1, n: 1 });
    expect(d).toMatchObject({ kind: 'link', path: 'exact' });
    expect(d.confidence.score).toBeGreaterThan(0.95);
  });

  it('a private window: randomised canvas and audio are ignored, not held against the visitor', () => {
    const noisy: Signals = {
      ...macSafari(),
      canvas: { winding: true, geometry: 'rnd1', text: 'rnd2' },
      audio: 'rnd3',
      incognito: { likely: true, method: 'storage', quota_mb: 1024 },
    };
    const s = scoreCandidate(visit(noisy), candidate('mac', [macSafari()]));
    expect(s.contradictions).toEqual([]);
    const notPrivate = scoreCandidate(visit({ ...noisy, incognito: { likely: false, method: 'storage' } }), candidate('mac', [macSafari()]));
    expect(notPrivate.contradictions).toEqual(expect.arrayContaining(['canvas_geometry', 'audio']));
  });

  it('a browser alternating between two monitors matches both', () => {
    const alternating = candidate('alt', [desktop(), externalMonitor(desktop()), desktop()]);
    const s1 = scoreCandidate(visit(desktop()), alternating);
    const s2 = scoreCandidate(visit(externalMonitor(desktop())), alternating);
    expect(s1.contradictions).toEqual([]);
    expect(s2.contradictions).toEqual([]);
  });
});

describe('different browsers and devices stay apart', () => {
  it('another device is a new visitor', () => {
    expect(decideWithoutToken(visit(macSafari()), [candidate('desk', [desktop()])], {})).toMatchObject({ kind: 'new' });
    expect(decideWithoutToken(visit(iphone()), [candidate('mac', [macSafari()])], {})).toMatchObject({ kind: 'new' });
  });

  it('another browser on the same machine is vetoed by its browser family', () => {
    const edge = { ...desktop(), user_agent: `${desktop().user_agent} Edg/120.0.2210.91` };
    const s = scoreCandidate(visit(edge), candidate('desk', [desktop()]));
    expect(s.vetoed).toBe(true);
    expect(s.contradictions).toContain('ua_family');
  });

  it('an older release than the visitor already ran is another browser', () => {
    const upgraded = candidate('desk', [desktop(), upgradeChrome(desktop())]);
    const s = scoreCandidate(visit(desktop()), upgraded);
    expect(s.vetoed).toBe(true);
    expect(s.contradictions).toContain('version_downgrade');
    expect(decideWithoutToken(visit(desktop()), [upgraded], {})).toMatchObject({ kind: 'new' });
  });
});

describe('identical devices', () => {
  // Two iPhones of one model and OS build, both proven alive with their own tokens.
  const alice = candidate('alice', [iphone()], { network: 'v4:81.2.10', firstSeenAt: 0, lastTokenAt: 9 * DAY });
  const bob = candidate('bob', [iphone()], { network: 'v4:81.7.99', firstSeenAt: 1 * DAY, lastTokenAt: 9 * DAY });

  it('with different IPs: a visit from a third network is not merged into either', () => {
    const d = decideWithoutToken(visit(iphone(), 'v4:81.200.3'), [alice, bob], { f: 2, l: 2 });
    expect(d.kind).toBe('new');
    expect(d.confidence.score).toBeLessThan(0.9);
  });

  it('the network picks the one that was seen there, with a lowered confidence', () => {
    const d = decideWithoutToken(visit(iphone(), 'v4:81.7.99'), [alice, bob], { f: 2, l: 2 });
    expect(d).toMatchObject({ kind: 'link', visitorId: 'bob', path: 'cluster' });
    expect(d.confidence.comment).toMatch(/look-alike/);
    const alone = decideWithoutToken(visit(iphone(), 'v4:81.7.99'), [bob], { f: 1, l: 1 });
    expect(d.confidence.score).toBeLessThan(alone.confidence.score);
    // On a shared network (a carrier NAT with many visitors) the same evidence is not enough.
    expect(decideWithoutToken(visit(iphone(), 'v4:81.7.99'), [alice, bob], { f: 2, l: 2, p: 16 })).toMatchObject({ kind: 'new' });
  });

  it('several proven-distinct look-alikes on one network (an office image) give a new visitor', () => {
    const carol = candidate('carol', [iphone()], { network: 'v4:81.7.99', firstSeenAt: 2 * DAY, lastTokenAt: 9 * DAY });
    expect(decideWithoutToken(visit(iphone(), 'v4:81.7.99'), [alice, bob, carol], { f: 3 })).toMatchObject({ kind: 'new' });
  });

  it('identical look-alikes on one network: no candidate stands out with a clear margin, so a new ID (never pooled into the oldest)', () => {
    const original = candidate('original', [iphone()], { network: 'v4:81.7.99', firstSeenAt: 0, lastTokenAt: null });
    const split = candidate('split', [iphone()], { network: 'v4:81.7.99', firstSeenAt: 5 * DAY, lastTokenAt: 8 * DAY });
    expect(decideWithoutToken(visit(iphone(), 'v4:81.7.99'), [split, original], { f: 2, n: 2 })).toMatchObject({ kind: 'new' });
    // Alone on its home network, the same phone comes back.
    expect(decideWithoutToken(visit(iphone(), 'v4:81.7.99'), [original], { f: 1, n: 1, p: 1 })).toMatchObject({ kind: 'link', visitorId: 'original' });
  });

  it('a visit without storage links only with a clear margin over the anonymity set of its network', () => {
    const phone = candidate('phone', [iphone()], { network: 'v4:81.7.99', lastTokenAt: 19 * DAY });
    // Alone of its kind on a home network: the phone that lost its storage.
    expect(decideWithoutToken(visit(iphone(), 'v4:81.7.99'), [phone], { f: 3, n: 1, p: 1 })).toMatchObject({ kind: 'link', visitorId: 'phone' });
    // Several devices of this hardware class seen on the network: a first visit of another one is as likely.
    expect(decideWithoutToken(visit(iphone(), 'v4:81.7.99'), [phone], { f: 3, n: 4, p: 4 })).toMatchObject({ kind: 'new' });
  });

  it('links only when the candidate is four times as likely as the strongest alternative: a closer call waits for relinking', () => {
    const home = 'v4:81.7.99';
    // The only device of its kind on a home network that three visitors use; its storage was in
    // use five days ago (a first loss): twice as likely as a browser never seen.
    const phone = candidate('phone', [iphone()], { network: home, lastTokenAt: 15 * DAY });
    phone.profile.jars = [{ i: 'a', first: 0, last: 15 * DAY }];
    const decision = decideWithoutToken(visit(iphone(), home), [phone], { f: 20, l: 20, r: 20, n: 1, p: 2 });
    expect(decision).toMatchObject({ kind: 'new', contested: true });
    // With the margin at one bit (twice as likely) the same visit links.
    const shipped = MATCH.linkMarginBits;
    try {
      MATCH.linkMarginBits = 1;
      expect(decideWithoutToken(visit(iphone(), home), [phone], { f: 20, l: 20, r: 20, n: 1, p: 2 })).toMatchObject({ kind: 'link', visitorId: 'phone' });
    } finally {
      MATCH.linkMarginBits = shipped;
    }
  });

  it('a network block the candidate hops through (carrier NAT pool) is no home evidence, however few visitors it shows', () => {
    let profile = emptyProfile();
    for (const net of ['v4:100.64.1', 'v4:100.64.2', 'v4:100.64.3']) profile = updateProfile(profile, extractFeatures(iphone()), net);
    const phone: Candidate = { visitorId: 'carrierPhone', firstSeenAt: 0, lastSeenAt: 10 * DAY, lastTokenAt: 9 * DAY, profile };
    // Seen on 100.64.1 before, but also on two other blocks of the same pool: a pool, not a home.
    const decision = decideWithoutToken(visit(iphone(), 'v4:100.64.1'), [phone], { f: 30, l: 30, r: 30, n: 1, p: 1 });
    expect(decision.kind).toBe('new');
  });

  it('alone of its kind on a home network that a few visitors use: links when its storage is expected lost, not when it should still hold its token', () => {
    const home = 'v4:81.7.99';
    // Seen losing its storage before (two storage jars): a tokenless visit is what it does.
    const loser = candidate('loser', [iphone()], { network: home, lastTokenAt: 15 * DAY });
    loser.profile.jars = [{ i: 'a', first: 0, last: 5 * DAY }, { i: 'b', first: 6 * DAY, last: 15 * DAY }];
    // Kept one storage so far and used it five days ago.
    const keeper = candidate('keeper', [iphone()], { network: home, lastTokenAt: 15 * DAY });
    keeper.profile.jars = [{ i: 'a', first: 0, last: 15 * DAY }];
    // The only device of its hardware class ever seen there (n: 1), among three visitors (p: 3).
    const crowding = { f: 20, l: 20, r: 20, n: 1, p: 3 };
    expect(decideWithoutToken(visit(iphone(), home), [loser], crowding)).toMatchObject({ kind: 'link', visitorId: 'loser' });
    expect(decideWithoutToken(visit(iphone(), home), [keeper], crowding)).toMatchObject({ kind: 'new' });
    // A private window never has the token: the same evidence links the keeper too.
    const privateWindow = visit({ ...iphone(), incognito: { likely: true, method: 'storage' } }, home);
    expect(decideWithoutToken(privateWindow, [keeper], crowding)).toMatchObject({ kind: 'link', visitorId: 'keeper' });
    // Several devices of the class seen there (n: 4): as likely one of the others, or a new one.
    expect(decideWithoutToken(visit(iphone(), home), [loser], { ...crowding, n: 4 })).toMatchObject({ kind: 'new' });
  });

  it('a common device that repeats the complete signature only the candidate showed is less likely one never seen', () => {
    const home = 'v4:81.7.99';
    // Kept one storage so far and used it five days ago: without more evidence, a tokenless
    // visit is as likely another phone of its kind (the keeper case above).
    const keeper = candidate('keeper', [iphone()], { network: home, lastTokenAt: 15 * DAY });
    keeper.profile.jars = [{ i: 'a', first: 0, last: 15 * DAY }];
    const crowding = { f: 20, l: 20, r: 20, n: 1, p: 3 };
    expect(decideWithoutToken(visit(iphone(), home), [keeper], crowding)).toMatchObject({ kind: 'new' });
    // Twenty visitors share its hardware signature, yet none but the keeper ever showed its
    // complete one (screen, timezone, languages, preferences): a phone never seen would have to
    // coincide with it where the other nineteen do not.
    const linked = decideWithoutToken(visit(iphone(), home), [keeper], { ...crowding, x: 1 });
    expect(linked).toMatchObject({ kind: 'link', visitorId: 'keeper' });
    expect(linked.confidence.comment).toMatch(/; its complete signature, which none of the 19 other visitors of its hardware showed$/);
    // Another visitor showed that complete signature too: no such evidence.
    expect(decideWithoutToken(visit(iphone(), home), [keeper], { ...crowding, x: 2 })).toMatchObject({ kind: 'new' });
    // Nor when the visit differs from the keeper's last signature (another timezone).
    expect(decideWithoutToken(visit(travel(iphone()), home), [keeper], { ...crowding, x: 1 })).toMatchObject({ kind: 'new' });
    // The evidence grows with the crowd the signature stands out of: two look-alikes say little.
    expect(decideWithoutToken(visit(iphone(), home), [keeper], { ...crowding, f: 2, l: 2, r: 2, x: 1 })).toMatchObject({ kind: 'new' });
    const shipped = MATCH.exactSignatureMaxBits;
    try {
      MATCH.exactSignatureMaxBits = 0;
      expect(decideWithoutToken(visit(iphone(), home), [keeper], { ...crowding, x: 1 })).toMatchObject({ kind: 'new' });
    } finally {
      MATCH.exactSignatureMaxBits = shipped;
    }
  });

  it('in a private window, the device and settings only the candidate showed stand for its complete signature', () => {
    const home = 'v4:81.7.99';
    const keeper = candidate('keeper', [iphone()], { network: home, lastTokenAt: 15 * DAY });
    keeper.profile.jars = [{ i: 'a', first: 0, last: 15 * DAY }];
    // Safari's private window: canvas and audio randomised, so the complete signature is its own.
    const privateWindow = visit({ ...iphone(), incognito: { likely: true, method: 'opfs' }, canvas: { ...iphone().canvas!, text: 'noise-1' }, audio: '35.1089' }, home);
    // Three devices of its hardware class were seen at this home: as likely another of them.
    const crowding = { f: 20, l: 20, r: 20, n: 3, p: 4 };
    expect(decideWithoutToken(privateWindow, [keeper], crowding)).toMatchObject({ kind: 'new' });
    // None but the keeper ever showed its device with these settings (screen, timezone, languages, fonts).
    const linked = decideWithoutToken(privateWindow, [keeper], { ...crowding, d: 1 });
    expect(linked).toMatchObject({ kind: 'link', visitorId: 'keeper' });
    expect(linked.confidence.comment).toMatch(/; its device and settings, which none of the 19 other visitors of its hardware showed$/);
    // Another visitor showed them too, or the window shows other settings: no such evidence.
    expect(decideWithoutToken(privateWindow, [keeper], { ...crowding, d: 2 })).toMatchObject({ kind: 'new' });
    const travelling = visit({ ...travel(iphone()), incognito: { likely: true, method: 'opfs' }, canvas: { ...iphone().canvas!, text: 'noise-2' } }, home);
    expect(decideWithoutToken(travelling, [keeper], { ...crowding, d: 1 })).toMatchObject({ kind: 'new' });
    // A normal window whose complete signature is not the candidate's (x: 0, say after a release):
    // the device key alone says nothing there, though this candidate's storage, last used 15 days
    // ago, may well be gone (Safari's 7-day cap) and the key would tip it (bench/accuracy/README.md:
    // on every visit it cost merged IDs).
    const quiet = candidate('quiet', [iphone()], { network: home, lastTokenAt: 5 * DAY });
    quiet.profile.jars = [{ i: 'b', first: 0, last: 5 * DAY }];
    const normalWindow = visit({ ...iphone(), canvas: { ...iphone().canvas!, text: 'another-release' } }, home);
    expect(decideWithoutToken(normalWindow, [quiet], { ...crowding, d: 1 })).toMatchObject({ kind: 'new' });
    const shipped = MATCH.privateDeviceSignature;
    try {
      MATCH.privateDeviceSignature = 0;
      expect(decideWithoutToken(privateWindow, [keeper], { ...crowding, d: 1 })).toMatchObject({ kind: 'new' });
    } finally {
      MATCH.privateDeviceSignature = shipped;
    }
  });

  it('a private window at a home whose address changed is found on the household\'s earlier network, only there', () => {
    const oldHome = 'v4:81.7.99';
    const newHome = 'v4:92.40.12';
    const phone = candidate('phone', [iphone()], { network: oldHome, lastTokenAt: 15 * DAY });
    phone.profile.jars = [{ i: 'a', first: 0, last: 15 * DAY }];
    const privateWindow = (household?: VisitContext['household']): VisitContext => ({
      ...visit({ ...iphone(), incognito: { likely: true, method: 'storage' } }, newHome),
      ...(household && { household }),
    });
    // Another visitor of the new address was seen at the old one: one home, two addresses.
    // Two visitors at the old address (the phone and a laptop), the laptop alone at the new one.
    const household = [{ network: oldHome, visitors: 2, lookalikes: 1 }];
    const crowding = { f: 20, l: 20, r: 20, p: 1 };
    const found = decideWithoutToken(privateWindow(household), [phone], crowding);
    expect(found).toMatchObject({ kind: 'link', visitorId: 'phone' });
    expect(found.confidence.comment).toContain('another network of this household');
    // Without that link, the old address is just another network.
    expect(decideWithoutToken(privateWindow(), [phone], crowding)).toMatchObject({ kind: 'new' });
    // Several devices of its kind seen at the household's addresses: any of them, or a new one.
    expect(decideWithoutToken(privateWindow([{ ...household[0]!, lookalikes: 4 }]), [phone], crowding)).toMatchObject({ kind: 'new' });
    // A network many visitors use (carrier NAT, office) is nobody's home, whatever it shares.
    expect(decideWithoutToken(privateWindow(household), [phone], { ...crowding, p: MATCH.sharedNetworkVisitors })).toMatchObject({ kind: 'new' });
  });

  it('a tokenless look-alike an hour after the candidate used its storage is more likely another device', () => {
    const home = 'v4:81.7.99';
    const justUsed = (hoursAgo: number) => {
      const c = candidate('phone', [iphone()], { network: home, lastTokenAt: 20 * DAY - hoursAgo * 3_600_000 });
      c.profile.jars = [{ i: 'a', first: 0, last: 20 * DAY - hoursAgo * 3_600_000 }];
      return c;
    };
    const crowding = { f: 3, n: 1, p: 1 };
    expect(decideWithoutToken(visit(iphone(), home), [justUsed(1)], crowding)).toMatchObject({ kind: 'new' });
    expect(decideWithoutToken(visit(iphone(), home), [justUsed(48)], crowding)).toMatchObject({ kind: 'link', visitorId: 'phone' });
  });

  it('a browser back without its storage minutes after its first visit (a repeated sign-up) keeps its ID though others share its hardware and fonts', () => {
    const home = 'v4:81.7.99';
    const now = 20 * DAY;
    // Its first visit two minutes ago; no token came back since.
    const signedUp = candidate('first-sign-up', [desktop()], { network: home, firstSeenAt: now - 120_000, lastTokenAt: null });
    signedUp.profile.jars = [{ i: 'a', first: now - 120_000, last: now - 120_000 }];
    // Three visitors share its drift-robust keys, none its complete signature.
    const shared = { f: 3, l: 3, r: 3, x: 1, n: 1, p: 1 };
    expect(decideWithoutToken(visit(desktop(), home), [signedUp], shared)).toMatchObject({ kind: 'link', visitorId: 'first-sign-up' });
    // Were a storage in use minutes ago as unlikely lost as the cap allowed before (64 times): a new ID.
    const cap = MATCH.recentStorageMaxBits;
    MATCH.recentStorageMaxBits = 6;
    try {
      expect(decideWithoutToken(visit(desktop(), home), [signedUp], shared)).toMatchObject({ kind: 'new' });
    } finally {
      MATCH.recentStorageMaxBits = cap;
    }
  });

  it('a fingerprint nobody else shares keeps its ID when its storage is cleared and the page reloaded at once', () => {
    const home = 'v4:81.7.99';
    const laptop = candidate('laptop', [desktop()], { network: home, lastTokenAt: 20 * DAY - 60_000 });
    laptop.profile.jars = [{ i: 'a', first: 0, last: 20 * DAY - 60_000 }];
    // Alone with its signature: no device of its kind to be confused with, so a tokenless visit a
    // minute after its storage was used is the same browser after a clear.
    expect(decideWithoutToken(visit(desktop(), home), [laptop], { f: 1, l: 1, r: 1, x: 1, n: 1, p: 1 })).toMatchObject({ kind: 'link', visitorId: 'laptop' });
    // The same minute with look-alikes of its fingerprint around: more likely one of them.
    expect(decideWithoutToken(visit(desktop(), home), [laptop], { f: 20, l: 20, r: 20, x: 20, n: 1, p: 1 })).toMatchObject({ kind: 'new' });
  });

  it('a visitor that took a burst of storages without a token counts as a cluster: identical devices arriving one after another are not all merged into it', () => {
    const office = 'v4:81.7.99';
    // Its first visit's jar and those of the tokenless visits linked to it, minutes apart.
    const withJars = (count: number) => {
      const c = candidate('image', [desktop()], { network: office, lastTokenAt: null });
      c.profile.jars = Array.from({ length: count }, (_, k) => ({ i: `j${k}`, first: 20 * DAY - (count - k) * 600_000, last: 20 * DAY - (count - k) * 600_000 }));
      return c;
    };
    const crowding = { f: 1, l: 1, r: 1, x: 1, n: 1, p: 1 };
    // A storage cleared, a second browser profile, an upgraded browser: one browser's doing (the
    // end-to-end promise), still linked.
    for (let jars = 1; jars < MATCH.burstJars; jars++) {
      expect(decideWithoutToken(visit(desktop(), office), [withJars(jars)], crowding)).toMatchObject({ kind: 'link', visitorId: 'image' });
    }
    // One more within the window: more storage losses than one browser has in a day.
    expect(decideWithoutToken(visit(desktop(), office), [withJars(MATCH.burstJars)], crowding)).toMatchObject({ kind: 'new' });
    // The same storages spread over weeks (a browser that clears its storage on exit) do not count.
    const spread = withJars(MATCH.burstJars);
    spread.profile.jars = spread.profile.jars!.map((j, k) => ({ ...j, first: k * 3 * DAY, last: k * 3 * DAY }));
    expect(decideWithoutToken(visit(desktop(), office), [spread], crowding)).toMatchObject({ kind: 'link', visitorId: 'image' });
  });

  it('one browser under two IDs on its home network (a storage loss among look-alikes) is one hypothesis, answered with the earlier ID', () => {
    const home = 'v4:81.7.99';
    // The earlier ID visited daily for ten days, then went quiet; the later one was created
    // after (contested: look-alikes existed) with a storage that never overlapped the earlier's.
    const earlier = candidate('earlier', [iphone()], { network: home, firstSeenAt: 0, lastTokenAt: 9 * DAY });
    Object.assign(earlier, { lastSeenAt: 9 * DAY, visitCount: 10 });
    earlier.profile.jars = [{ i: 'a', first: 0, last: 9 * DAY }];
    const later = candidate('later', [iphone()], { network: home, firstSeenAt: 12 * DAY, lastTokenAt: 13 * DAY });
    Object.assign(later, { lastSeenAt: 13 * DAY, visitCount: 2 });
    later.profile.jars = [{ i: 'b', first: 12 * DAY, last: 13 * DAY }];
    later.profile.contested = true;
    const crowding = { f: 20, l: 20, r: 20, n: 2, p: 3 };
    expect(decideWithoutToken(visit(iphone(), home), [later, earlier], crowding)).toMatchObject({ kind: 'link', visitorId: 'earlier' });
    MATCH.lineage = 0;
    try {
      expect(decideWithoutToken(visit(iphone(), home), [later, earlier], crowding)).toMatchObject({ kind: 'new' });
    } finally {
      MATCH.lineage = 1;
    }
    // Storages in use at the same time are two browsers: look-alikes, no clear margin, a new ID.
    const overlapping = { ...earlier, lastSeenAt: 13 * DAY, profile: { ...earlier.profile, jars: [{ i: 'a', first: 0, last: 13 * DAY }] } };
    expect(decideWithoutToken(visit(iphone(), home), [later, overlapping], crowding)).toMatchObject({ kind: 'new' });
    // Nor when the earlier ID, at its own rate, should have come back since the later one appeared.
    const stillActive = { ...earlier, lastSeenAt: 9 * DAY, visitCount: 2, firstSeenAt: 0 };
    expect(decideWithoutToken({ ...visit(iphone(), home), now: 12.5 * DAY }, [later, stillActive], crowding)).toMatchObject({ kind: 'new' });
  });

  it('an abandoned storage (a look-alike ID seen once, days ago, never back with its token) weighs less than a device in use', () => {
    const home = 'v4:81.7.99';
    // The original: five visits over 18 days, one storage lost on day 10 already (two jars).
    const original = candidate('original', [windowsChrome()], { network: home, firstSeenAt: 0, lastTokenAt: 18 * DAY });
    Object.assign(original, { lastSeenAt: 18 * DAY, visitCount: 5 });
    original.profile.jars = [{ i: 'a1', first: 10.1 * DAY, last: 18 * DAY }, { i: 'a0', first: 0, last: 10 * DAY }];
    // Created among look-alikes half a day later, seen once, its storage never used again: too
    // soon for the original, at its rate, to count as quiet, so not its lineage.
    const abandoned = candidate('abandoned', [windowsChrome()], { network: home, firstSeenAt: 18.5 * DAY, lastTokenAt: null });
    Object.assign(abandoned, { lastSeenAt: 18.5 * DAY, visitCount: 1 });
    abandoned.profile.jars = [{ i: 'b', first: 18.5 * DAY, last: 18.5 * DAY }];
    abandoned.profile.contested = true;
    const crowding = { f: 30, l: 30, r: 30, h: 30, n: 2, p: 2 };
    const at = (now: number) => ({ ...visit(windowsChrome(), home), now });
    expect(decideWithoutToken(at(20 * DAY), [abandoned, original], crowding)).toMatchObject({ kind: 'link', visitorId: 'original' });
    const before = MATCH.abandonedStorageBits;
    MATCH.abandonedStorageBits = 0;
    try {
      // Two IDs of equal weight: no clear margin.
      expect(decideWithoutToken(at(20 * DAY), [abandoned, original], crowding)).toMatchObject({ kind: 'new' });
    } finally {
      MATCH.abandonedStorageBits = before;
    }
    // Less than a day since: its device may still come back with it.
    expect(decideWithoutToken(at(19 * DAY), [abandoned, original], crowding)).toMatchObject({ kind: 'new' });
    // Created while no known visitor looked like it (not contested): it stands as it is.
    const firstOfItsKind = { ...abandoned, profile: { ...abandoned.profile, contested: undefined } };
    expect(decideWithoutToken(at(20 * DAY), [firstOfItsKind, original], crowding)).toMatchObject({ kind: 'new' });
    // Only a younger one is weighed down: of two abandoned storages, the older stands (it may be
    // the browser whose storages the younger ones are), whichever of the two it is.
    const older = { ...abandoned, visitorId: 'older', firstSeenAt: 17 * DAY };
    expect(decideWithoutToken(at(20 * DAY), [abandoned, older], crowding)).toMatchObject({ kind: 'link', visitorId: 'older' });
    expect(decideWithoutToken(at(20 * DAY), [{ ...abandoned, firstSeenAt: 16 * DAY }, older], crowding)).toMatchObject({ kind: 'link', visitorId: 'abandoned' });
  });

  it('a link names its deciding evidence in the comment', () => {
    const original = candidate('original', [iphone()], { network: 'v4:81.7.99', firstSeenAt: 0, lastTokenAt: null });
    const decision = decideWithoutToken(visit(iphone(), 'v4:81.7.99'), [original], { f: 1, n: 1, p: 1 });
    expect(decision.confidence.comment).toMatch(/linked without token: signals match; seen on this network/);
  });
});

describe('a visit with a valid token', () => {
  it('keeps full confidence through normal drift', () => {
    const c = judgeTokenVisit(visit(travel(upgradeChrome(desktop()))), candidate('desk', [desktop()]));
    expect(c.score).toBeGreaterThan(0.95);
    expect(c.comment).toBeUndefined();
  });

  it('is flagged when the signals belong to a different device (a copied token)', () => {
    const c = judgeTokenVisit(visit(macSafari()), candidate('desk', [desktop()]));
    expect(c.score).toBeLessThanOrEqual(0.5);
    expect(c.comment).toMatch(/different-looking device/);
  });
});

describe('profile', () => {
  it('keeps a bounded recent history and survives a round trip', () => {
    let p = emptyProfile();
    for (let i = 0; i < 10; i++) p = updateProfile(p, extractFeatures({ ...desktop(), timezone: `Zone/${i}` }), `v4:10.0.${i}`);
    expect(p.c.timezone).toHaveLength(4);
    expect(p.c.timezone![0]).toBe('Zone/9|300');
    expect(p.nets).toHaveLength(8);
    expect(parseProfile(JSON.stringify(p))).toEqual(p);
    expect(parseProfile('{broken')).toEqual(emptyProfile());
  });
});
