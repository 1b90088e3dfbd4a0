/**
 * The matcher (pure: no database, no clock, no I/O). Given the features of a visit and the
 * candidate visitors retrieved for it, decide who the visitor is and how sure we are.
 *
 * Scoring is a log2 likelihood ratio: each component that agrees with one of the candidate's
 * recent values adds how discriminating it is, each disagreement subtracts how unlikely that
 * change is on one browser; changes one browser cannot make (another architecture, platform
 * or browser family) veto the candidate outright.
 *
 * Signals alone cannot tell identical devices apart (the same phone model, one corporate
 * image), so a match must also be unique enough: when several visitors look the same, or the
 * fingerprint is shared by other visitors in the data, weak server-side evidence (the same
 * network, the same Accept-Language) has to point to one of them; otherwise the visit becomes
 * a new visitor. The confidence says how likely the answer is to be wrong, by evidence path.
 */
import type { Confidence } from '../../protocol/index.js';
import { incompatibility, profileIncompatibility } from './compatibility.js';
import { BLOCKING_KEYS, COMPONENTS, COMPONENT_NAMES, type ComponentName } from './components.js';
import { isDowngrade, type Features } from './features.js';
import type { HouseholdNetwork } from './household.js';
import { hopsThrough, inWiderNetwork, widerNetwork } from './network.js';
import type { VisitorProfile } from './profile.js';

export const CONFIDENCE_VERSION = '1.0';

export interface Candidate {
  visitorId: string;
  firstSeenAt: number;
  lastSeenAt: number;
  /** Last visit that brought this visitor's own valid token; null if none did since creation. */
  lastTokenAt: number | null;
  profile: VisitorProfile;
  /** Visits recorded on this visitor (the store's count), when known. */
  visitCount?: number;
}

export interface VisitContext {
  features: Features;
  /** networkPrefix() of the client IP. */
  network: string | null;
  /** ms of the visit (input, never a clock read). */
  now: number;
  /**
   * The other networks of the visit's household (household.ts), with the store's counts: where
   * the visitors of this network were also seen, when few visitors use them. Absent when not read.
   */
  household?: readonly HouseholdNetwork[];
  /**
   * The service's cookie can keep this browser's token (`--visitor-cookie` and a same-origin
   * request): picks the ID-origin model (id-origin.ts). Absent: the agent's storage alone.
   */
  tokenCookie?: boolean;
}

/**
 * How many other visitors share this visit's blocking keys, as seen by the bounded retrieval
 * (a lower bound, capped at the retrieval limit). A key shared by many is a common fingerprint.
 */
export type KeyCrowding = Record<string, number>;

export interface CandidateScore {
  candidate: Candidate;
  /** log2 likelihood ratio, same browser vs another browser. */
  score: number;
  /** A change one browser cannot make. */
  vetoed: boolean;
  /** Components that disagree (names), for comments and tests. */
  contradictions: string[];
  /** Current network seen recently on this visitor. */
  sameNetwork: boolean;
  /** Seen in the same wider block (widerNetwork()). */
  sameWideNetwork: boolean;
  /** Not seen on this network, but on another network of its household (VisitContext.household). */
  householdNetwork: HouseholdNetwork | undefined;
}

/** Tunables, in log2 units unless said otherwise. */
export const MATCH = {
  /** Below this a candidate is not a match at all. */
  minScore: 20,
  /** Candidates within this of the best are indistinguishable look-alikes. */
  tieMargin: 6,
  /** Penalty for a change of a component that already changed on this visitor. */
  knownVariablePenalty: 0.5,
  /**
   * Network evidence, log2 of P(this network | candidate) / P(this network | a new browser):
   * seen on this network when it is a home or a shared one, seen only in the same wider block
   * (IPv4 /16, IPv6 /32: the ISP's pool, e.g. after a new lease), or never near it.
   */
  homeNetworkBits: 8,
  sharedNetworkBits: 1,
  wideNetworkBits: 4,
  otherNetworkBits: -1.5,
  /** How much of the signal score difference between candidates counts (look-alikes differ only by drift). */
  relativeScoreWeight: 0.5,
  /** A browser that kept its token so far should still have it (storageLossBits). */
  tokenShouldBeAliveBits: -2,
  /**
   * A browser whose storage was in use less than this many days ago is that much less likely to
   * have lost it since: log2 of the elapsed share of this period, at most recentStorageMaxBits.
   * At most 3 bits (eight times), not 6: browsers that clear the site's data between page views
   * (repeated sign-ups, the abuse a fraud team looks for) lose it minutes after using it.
   * Accuracy bench, 5,000 browsers, 60 days (tessera-1 / holdout-2): that cohort re-identified
   * 12.70 / 31.38% instead of 4.74 / 9.54%, after a storage loss 15.31 / 19.70% instead of
   * 14.46 / 17.59%, merged IDs 37 / 39 instead of 35 / 38 (bench/accuracy/README.md).
   */
  recentStorageDays: 1,
  recentStorageMaxBits: 3,
  /** Prior of "a browser never seen" against one look-alike candidate, log2 (grows with the anonymity set). */
  newBits: 4,
  /** The same prior for the reported posteriors, log2 (a new ID's is then re-weighed by id-origin.ts). */
  calibratedNewBits: -0.5,
  /** A visitor proven to be shared by two browsers (jars.ts), log2. */
  twinnedVisitorBits: -6,
  /**
   * A visitor that took this many storages (jars) without a token within burstWindowHours
   * counts as a cluster of look-alikes, as if proven (storageBurst); 0 turns it off.
   */
  burstJars: 4,
  burstWindowHours: 24,
  /** A rare fingerprint (see decideWithoutToken) against a browser never seen, log2. */
  rareFingerprintBits: -5,
  /** Visitors of one hardware class (the `h:` key) from which the class counts as common. */
  commonHardwareVisitors: 3,
  /** Posterior needed to link. */
  linkPosterior: 0.5,
  /**
   * Clear margin, log2: the linked visitor's weight must exceed the strongest alternative (a
   * browser never seen, or another candidate) by this much: four times. A link cannot be undone
   * (the new storage keeps the ID), a split can: when the evidence later singles the earlier ID
   * out, with its silence meanwhile, relinking moves the storage back (relink.ts). On the
   * accuracy benchmark (5,000 browsers, 60 days, both seeds) two bits instead of one gave fewer
   * merged IDs and more re-identification, with relinking weighing the silence
   * (bench/accuracy/README.md).
   */
  linkMarginBits: 2,
  /**
   * A network on which the candidate was seen counts as a pool (carrier NAT, an ISP's dynamic
   * block), not a home, when the candidate was also seen on this many other /24 (/64) of the
   * same wider block: its visits hop between addresses other phones use too.
   */
  poolNetworks: 2,
  /** Distinct visitors seen on one network (/24, /64) over time from which on it is shared (carrier NAT, office, VPN), not a home. */
  sharedNetworkVisitors: 12,
  /**
   * Lineage, 1 on, 0 off: IDs seen on the visit's home network that may be one browser after
   * storage losses (successor()) are one hypothesis, answered with the earliest.
   */
  lineage: 1,
  /**
   * An abandoned storage among the look-alikes (abandonedStorage()): an ID created among
   * look-alikes, seen once a day or more ago and never back with its token, younger than another
   * look-alike of the visit, weighs this much less, log2. Most such IDs are one-time visitors or
   * a browser's storage cleared right after use, not a device still in use. Accuracy bench,
   * 20,000 browsers, 90 days (`tessera-1` / `holdout-2`): merged IDs 150 / 115 -> 129 / 98 for
   * -0.25 / -0.28 points of re-identification, calibration's worst gap 4.93 / 1.91 points
   * (3.07 / 2.87 once id-origin.ts was refitted for it; bench/accuracy/README.md); 0 turns it off.
   */
  abandonedStorageBits: 2,
  /**
   * log2 of the weight of "a browser never seen" when no other known browser looks like the
   * visit (the anonymity set is the candidate alone): a fraction of one look-alike.
   */
  unseenLookalikeBits: 2,
  /**
   * A visit that repeats the complete signature only the candidate showed (exactSignatureBits):
   * at most this much evidence against "a browser never seen", log2; 0 turns it off. Accuracy
   * bench, 5,000 browsers, 60 days: +1.07 / +1.62 points for 2 / 2 more merged IDs (tessera-1 /
   * holdout-2); 2 and 5 bits in bench/accuracy/README.md.
   */
  exactSignatureMaxBits: 3,
  /**
   * In a private window, the device key (`d:`) nobody else showed stands for the complete
   * signature (exactSignatureBits), which the window's canvas and audio noise make unique; 0 turns
   * it off. Accuracy bench, 5,000 browsers, 60 days (tessera-1 / holdout-2): private windows
   * 35.25 / 38.30% re-identified instead of 34.84 / 37.92%, merged IDs 32 / 32 either way
   * (bench/accuracy/README.md).
   */
  privateDeviceSignature: 1,
  /** Font sets at least this similar (Jaccard) count as the same set that gained or lost a font. */
  fontSimilarity: 0.8,
  /**
   * Relinking (relink.ts), 1 on, 0 off: a young visitor ID created while look-alikes existed
   * (typically after a storage loss) is moved back to an earlier ID when a later visit's
   * evidence singles that one out.
   */
  relink: 1,
  /** Relinking: only an ID with at most this many visits... */
  relinkMaxVisits: 10,
  /** ...and created at most this many days before the visit. */
  relinkMaxDays: 30,
  /**
   * Relinking: a young ID's visit is weighed again (its candidates read) only when its lookup
   * keys differ from those of its last visit (another network, changed signals) or when this
   * many hours passed since it was last weighed (profile.relinkCheckedAt): the page views of
   * one session ask the same question on the same evidence, and each read costs as much as a
   * visit without a token. Time changes the answer slowly (an earlier ID's silence grows by
   * days). Accuracy bench, 5,000 browsers, 60 days: 1 hour -0.05 / -0.15 points, 24 hours
   * 0 / -0.25 (tessera-1 / holdout-2).
   */
  relinkRecheckHours: 1,
  /**
   * Relinking: other networks of the visit's wider block (IPv4 /16, IPv6 /32) on which either
   * ID was seen, from which the visit's network counts as a pool, not a home.
   */
  relinkPoolNetworks: 1,
  /**
   * Relinking: visits the earlier ID would have made, at its own rate, since the young ID
   * appeared, had its storage lived (its silence is the evidence that it did not).
   */
  relinkQuietVisits: 1,
  /**
   * Relinking: the earlier ID's silence since the young ID appeared is evidence, log2(e) bits per
   * visit it would have made at its own rate (were it another browser, still active, it would
   * most likely have come back), at most this many: browsers also stop visiting a site for good
   * (4 bits: an assumption that about one in sixteen regular visitors does; the benchmark's
   * simulated browsers never stop, so it cannot tell).
   */
  relinkSilenceMaxBits: 4,
  /**
   * Relinking, 1 on, 0 off: no relink to an earlier ID whose browser may live on as another ID
   * (a successor() of it, in use since the young ID appeared).
   */
  relinkLivesOn: 1,
  /** Relinking: the prior of a visitor's rate of visits, one per this many days (expectedVisits()). */
  relinkPriorVisitDays: 7,
  /**
   * Household networks (household.ts): at most this many other networks of the visit's
   * household are read for a visit without a token or a young ID's token visit; 0 turns them off.
   */
  householdNetworks: 6,
  /**
   * A candidate seen on another network of the household, not on this one, counts as seen at
   * home less this much, log2: the two networks are one home only by the visitors they share.
   */
  householdLinkBits: 2,
};

/** Fixed confidences of the paths that are not a posterior (token visits, no candidate at all). */
export const MATCH_CONFIDENCE = {
  token: 0.995,
  tokenDrifted: 0.9,
  tokenOtherDevice: 0.5,
  newClear: 0.95,
  /** A token whose jar was revoked (jars.ts): its browser was linked to another browser's ID by mistake. */
  revokedJar: 0.1,
};

/** Jaccard similarity of two sorted, de-duplicated lists. */
export function jaccard(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 && b.length === 0) return 1;
  const setB = new Set(b);
  let common = 0;
  for (const x of a) if (setB.has(x)) common++;
  return common / (a.length + b.length - common);
}

/** Components a browser or OS release may change (rendering engines, WebGL, audio, fonts). */
const RELEASE_SENSITIVE = new Set<string>([
  'user_agent', 'ua_data', 'webgl_params', 'webgl_extensions', 'canvas_geometry', 'canvas_text', 'audio', 'math', 'font_preferences', 'fonts', 'plugins',
]);

/** Components that private-mode fingerprinting protection randomises. */
const PRIVATE_NOISE = new Set<string>(['canvas_geometry', 'canvas_text', 'audio']);

export function scoreCandidate(visit: VisitContext, candidate: Candidate): CandidateScore {
  const { values, fonts } = visit.features;
  const profile = candidate.profile;
  let score = 0;
  let vetoed = false;
  const contradictions: string[] = [];
  const ua = values.user_agent;
  const lastUa = profile.c.user_agent?.[0];
  // A newer browser or OS release than last time explains new rendering hashes: no penalty.
  const upgraded = !!ua && !!lastUa && isDowngrade(lastUa, ua);
  for (const name of COMPONENT_NAMES) {
    const value = values[name];
    const history = profile.c[name];
    if (value === undefined || !history || history.length === 0) continue;
    // Private windows of Safari and Firefox randomise these per session: they say nothing.
    if (visit.features.privateMode && PRIVATE_NOISE.has(name)) continue;
    const spec: { match: number; mismatch: number; veto?: boolean } = COMPONENTS[name];
    if (history.includes(value)) {
      score += spec.match;
      continue;
    }
    if (name === 'fonts' && fonts && profile.fonts.length > 0) {
      // A font installed or removed: a near-identical set still says almost as much.
      const similarity = Math.max(...profile.fonts.map((set) => jaccard(fonts, set)));
      if (similarity >= MATCH.fontSimilarity) {
        score += spec.match * similarity - 1;
        continue;
      }
    }
    // A newer release explains a changed rendering hash; it counts as half a match, as a
    // look-alike stranger on the same release would get a full one.
    if (upgraded && RELEASE_SENSITIVE.has(name)) {
      score += spec.match / 2;
      continue;
    }
    // A component this browser has already shown several values for (anti-fingerprinting noise,
    // a monitor it keeps switching) says little when it changes again.
    score -= !spec.veto && history.length >= 2 ? Math.min(spec.mismatch, MATCH.knownVariablePenalty) : spec.mismatch;
    contradictions.push(name);
    if (spec.veto) vetoed = true;
  }
  if (ua && lastUa && isDowngrade(ua, lastUa)) {
    // An older browser or OS release than this visitor already ran: another browser.
    score -= 20;
    vetoed = true;
    contradictions.push('version_downgrade');
  }
  const sameNetwork = visit.network !== null && profile.nets.includes(visit.network);
  const wide = visit.network === null ? null : widerNetwork(visit.network);
  return {
    candidate,
    score,
    vetoed,
    contradictions,
    sameNetwork,
    sameWideNetwork: wide !== null && profile.nets.some((n) => inWiderNetwork(n, wide)),
    householdNetwork: sameNetwork ? undefined : visit.household?.find((h) => profile.nets.includes(h.network)),
  };
}

export type MatchPath = 'exact' | 'fuzzy' | 'cluster' | 'new';

export type Decision =
  /**
   * `evidence`: the deciding evidence in words (the comment says it); `exclusiveNetwork`: the
   * visitor was seen on this network and few visitors use it (a home).
   */
  | { kind: 'link'; visitorId: string; path: Exclude<MatchPath, 'new'>; confidence: Confidence; evidence: string; exclusiveNetwork: boolean }
  /**
   * `confidence`: that the browser was never seen. `contested` when look-alike visitors existed:
   * the new ID may then stand for a known browser that lost its storage (id-origin.ts).
   */
  | { kind: 'new'; path: 'new'; confidence: Confidence; contested: boolean };

export const confidenceOf = (score: number, comment?: string): Confidence => ({
  score: Math.round(score * 1000) / 1000,
  version: CONFIDENCE_VERSION,
  ...(comment ? { comment } : {}),
});

const confidence = confidenceOf;

const byAge = (a: CandidateScore, b: CandidateScore) => a.candidate.firstSeenAt - b.candidate.firstSeenAt;

/**
 * Decide a visit that brought no valid token: a posterior over "one of the candidates" and
 * "a browser we have not seen", each hypothesis weighted (log2) by
 * - the signal score relative to the best candidate (drift-aware likelihood ratio),
 * - the network: a candidate seen on this network gains much when the network is exclusive to
 *   a few visitors over time (a home), little when it is shared (carrier NAT, office, VPN exit)
 *   or a pool the candidate hops through,
 * - token loss: a WebKit browser keeps script storage for 7 days without a visit, so a
 *   tokenless, non-private visit is unlikely from a candidate that visited days ago,
 * - for "new": a prior that grows with the anonymity set (a common fingerprint is often a
 *   different device): visitors sharing the stable signature, or on a home network the devices
 *   of this hardware class seen there.
 * Candidates whose stable signals the visit contradicts are ruled out first (compatibility.ts).
 * The visit links to the best candidate when its posterior reaches MATCH.linkPosterior and it
 * beats the strongest alternative by MATCH.linkMarginBits; every ID stands for its own browser
 * (look-alikes are never pooled). The calibrated posterior is the confidence, and the comment
 * names the deciding evidence.
 */
export function decideWithoutToken(
  visit: VisitContext,
  candidates: readonly Candidate[],
  crowding: KeyCrowding,
  options: {
    strict?: boolean;
    /** Evidence from outside the visit, log2, per candidate (relink.ts: a predecessor's silence). */
    extraBits?: (c: Candidate) => number;
  } = {},
): Decision {
  // Hard rule: a visitor whose stable hardware or OS signals this visit contradicts is never linked.
  const scored = candidates
    .filter((c) => incompatibility(visit.features, c.profile) === null)
    .map((c) => scoreCandidate(visit, c))
    .filter((s) => !s.vetoed && s.score >= MATCH.minScore)
    .sort((a, b) => b.score - a.score || byAge(a, b));
  const best = scored[0];
  if (!best) return { kind: 'new', path: 'new', confidence: confidence(MATCH_CONFIDENCE.newClear), contested: false };

  const lookalikes = scored.filter((s) => s.score >= best.score - MATCH.tieMargin);
  // A fingerprint whose drift-robust keys nobody else shares (a rare font set, rendering or
  // hardware) is unlikely to come from a browser we have not seen, and a tokenless visit soon
  // after the candidate used its storage is no sign of another device of its kind (there is none);
  // not so for an ID that took a burst of storages (storageBurst): its look-alikes hide under it.
  const rare = lookalikes.length === 1 && signatureCrowding(crowding) === 1 && (crowding.x ?? 0) <= 1 && !storageBurst(best.candidate, visit.now);
  // Network evidence counts by how exclusive the network is: how many distinct visitors were
  // seen on it over time, and whether the candidate hops between blocks of one pool.
  const sharedNetwork = (crowding.p ?? 0) >= MATCH.sharedNetworkVisitors;
  // Seen at this home: on its network, or on another network of its household (household.ts).
  const exclusive = (s: CandidateScore) => !sharedNetwork && (s.sameNetwork ? !pooled(visit, s.candidate) : s.householdNetwork !== undefined);
  const oldestLookalikeSeenAt = Math.min(...lookalikes.map((s) => s.candidate.firstSeenAt));
  const weightOf = (s: CandidateScore) => {
    let lw = MATCH.relativeScoreWeight * (s.score - best.score);
    if (abandonedStorage(s.candidate, oldestLookalikeSeenAt, visit.now)) lw -= MATCH.abandonedStorageBits;
    // The more visitors share the network, the less being seen on it says.
    if (s.sameNetwork) lw += exclusive(s) ? MATCH.homeNetworkBits - Math.log2(Math.max(1, crowding.p ?? 1)) : MATCH.sharedNetworkBits;
    else if (s.householdNetwork && exclusive(s)) lw += MATCH.homeNetworkBits - Math.log2(Math.max(1, (crowding.p ?? 0) + s.householdNetwork.visitors)) - MATCH.householdLinkBits;
    else if (s.sameWideNetwork) lw += MATCH.wideNetworkBits;
    else if (visit.network) lw += MATCH.otherNetworkBits;
    // Two browsers were proven to share this visitor ID, or it took more storages in a day than
    // one browser has: it stands for a cluster of look-alikes.
    if (s.candidate.profile.twins || storageBurst(s.candidate, visit.now)) lw += MATCH.twinnedVisitorBits;
    lw += storageLossBits(visit, s.candidate, !rare);
    lw += options.extraBits?.(s.candidate) ?? 0;
    return 2 ** lw;
  };
  const weights = new Map(scored.map((s) => [s, weightOf(s)]));
  // One browser under several IDs: a browser that lost its storage at home while look-alikes
  // existed got a new ID, which then competes with its own earlier ID. IDs seen on this home
  // network that may be one browser (lineages()) are one hypothesis, answered with the earliest;
  // every other ID stands for its own browser (look-alikes are never pooled).
  const groups = options.strict ? scored.map((s) => [s]) : [...lineages(scored.filter(exclusive), visit.now), ...scored.filter((s) => !exclusive(s)).map((s) => [s])];
  const weightOfGroup = (g: readonly CandidateScore[]) => g.reduce((sum, s) => sum + weights.get(s)!, 0);
  const group = [...groups].sort((a, b) => weightOfGroup(b) - weightOfGroup(a) || byAge(a[0]!, b[0]!))[0]!;
  const top = group[0]!;
  const groupWeight = weightOfGroup(group);
  // The anonymity set: how many *other* browsers of this look could be behind the visit. On an
  // exclusive network (a home), the look-alikes seen there; elsewhere, the visitors sharing the
  // stable signals (counted in the store, up to its limit) or every look-alike retrieved.
  // On an exclusive network that count also covers the visitors of this hardware class seen on
  // it (`n:` key): identical devices of one household or office hide among each other. The
  // counts include the linked candidate itself, which is taken out.
  const onNetwork = lookalikes.filter(exclusive).length;
  const own = exclusive(top) ? group.length : 0;
  // The household's look-alikes: the most seen on one of its networks (a device seen on two is
  // one device).
  const householdLookalikes = Math.max(crowding.n ?? 0, ...(visit.household ?? []).map((h) => h.lookalikes));
  const others = onNetwork > 0
    ? Math.max(onNetwork, householdLookalikes) - own
    : Math.max(lookalikes.length, signatureCrowding(crowding)) - 1;
  const anonymity = others + 1;
  // "A browser never seen" weighs as much as the other browsers that look like this one; when
  // none does, as a fraction of one (MATCH.unseenLookalikeBits): that nobody else matches is
  // evidence too.
  // Only on a home network, where the census of its devices is what the count says, and only
  // for a browser whose storage is not expected to be alive (a private window, a browser seen
  // losing it before, WebKit's expiry): a tokenless visit that looks like a browser still
  // holding its token is as likely another device of the same kind.
  const unseen = !options.strict && own > 0 && (group.length > 1 || storageExpectedLost(visit, top.candidate));
  const repeated = rare ? null : repeatedSignature(visit, top.candidate, crowding);
  const exactBits = repeated === null ? 0 : exactSignatureBits(crowding);
  const newBase = (rare ? MATCH.rareFingerprintBits : Math.log2(Math.max(0, others) + (unseen ? 2 ** -MATCH.unseenLookalikeBits : 1))) - exactBits;
  const candidatesWeight = [...weights.values()].reduce((a, b) => a + b, 0);
  // Two priors for "a browser never seen": the decision one leans towards a new visitor (a wrong
  // merge is worse than a split); the calibrated one, fitted on bench/accuracy, gives the
  // probabilities reported as confidence.
  const newWeight = 2 ** (MATCH.newBits + newBase);
  const total = newWeight + candidatesWeight;
  const calibratedNewWeight = 2 ** (MATCH.calibratedNewBits + newBase);
  const calibratedTotal = calibratedNewWeight + candidatesWeight;

  const posterior = groupWeight / total;
  // A clear margin over the strongest alternative: a browser never seen, or another candidate.
  const rival = Math.max(newWeight, ...groups.filter((g) => g !== group).map(weightOfGroup));
  const marginBits = Math.log2(groupWeight / rival);
  if (posterior < MATCH.linkPosterior || marginBits < MATCH.linkMarginBits) {
    return {
      kind: 'new',
      path: 'new',
      confidence: confidence(calibratedNewWeight / calibratedTotal, 'look-alike visitors exist; none is likely enough'),
      contested: true,
    };
  }
  const answer = top;
  const path = lookalikes.length > 1 || others > 0 ? 'cluster' : isExact(visit.features, answer.candidate.profile) ? 'exact' : 'fuzzy';
  const exclusiveNetwork = exclusive(answer);
  // The visitors sharing its hardware signature besides the candidate, when its complete one (in a
  // private window: its device and settings) was its own.
  const signature = repeated !== null && exactBits > 0 ? { what: repeated, others: signatureCrowding(crowding) - 1 } : null;
  const evidence = linkEvidence(answer, exclusiveNetwork, lookalikes.length, anonymity, signature);
  return {
    kind: 'link', visitorId: answer.candidate.visitorId, path, confidence: confidence(groupWeight / calibratedTotal, `linked without token: ${evidence}`),
    evidence, exclusiveNetwork,
  };
}

/**
 * Candidates grouped by browser: an ID joins the group of earlier IDs when it may be their
 * browser under a new ID after a storage loss (successor()). Each group is sorted by age, its
 * earliest ID first.
 */
export function lineages(scored: readonly CandidateScore[], now: number): CandidateScore[][] {
  const groups: CandidateScore[][] = [];
  for (const s of [...scored].sort(byAge)) {
    const group = MATCH.lineage > 0 ? groups.find((g) => g.every((m) => successor(s.candidate, m.candidate, now))) : undefined;
    if (group) group.push(s);
    else groups.push([s]);
  }
  return groups;
}

/**
 * `later` may be `earlier`'s browser under a new ID after a storage loss: it was created as a
 * new visitor while look-alikes existed (what a storage loss among look-alikes looks like),
 * after `earlier`; neither was proven shared by two browsers; their stable hardware and OS
 * signals are compatible; and their storages were never in use at the same time (one browser
 * uses one storage at a time; private windows live beside it).
 */
export function successor(later: Candidate, earlier: Candidate, now: number): boolean {
  if (later.profile.contested !== true || later.firstSeenAt <= earlier.firstSeenAt) return false;
  // The earlier ID went quiet when the later one appeared, for longer than it takes it to come
  // back at its own rate (relink.ts applies the same rule): another device of its kind that
  // simply has not visited lately is not taken for it.
  if (missedVisits(earlier, now - later.firstSeenAt) < MATCH.relinkQuietVisits) return false;
  if (later.profile.twins || earlier.profile.twins) return false;
  if (profileIncompatibility(later.profile, earlier.profile) !== null) return false;
  const normal = (c: Candidate) => (c.profile.jars ?? []).filter((j) => !j.p && !j.x);
  const mine = normal(later);
  const theirs = normal(earlier);
  if (theirs.length === 0) return earlier.lastTokenAt === null || earlier.lastTokenAt <= later.firstSeenAt;
  return mine.every((a) => theirs.every((b) => a.last < b.first || b.last < a.first));
}

/**
 * An abandoned storage: an ID created among look-alikes (contested), seen once, a day or more
 * before `now`, whose token never came back, younger than another of the visit's look-alikes.
 * A device that keeps its storage comes back with it; one that never came back at all is most
 * likely a one-time visitor, or the storage a browser cleared right after using it (repeated
 * sign-ups), so as a rival or a candidate it stands for less than a device in use
 * (MATCH.abandonedStorageBits). The oldest look-alike is left as it is: it may be the browser
 * whose storages the younger ones are.
 */
function abandonedStorage(c: Candidate, oldestLookalikeSeenAt: number, now: number): boolean {
  if (MATCH.abandonedStorageBits <= 0 || c.profile.contested !== true || (c.visitCount ?? 0) > 1 || c.lastTokenAt !== null) return false;
  return now - c.firstSeenAt >= DAY_MS && c.firstSeenAt > oldestLookalikeSeenAt;
}

/**
 * How many visits `v` would have made in `ms` at its own rate (visits over the time between
 * its first and last, at least a day); a visitor seen once has no rate: 0.
 */
export function missedVisits(v: Candidate, ms: number): number {
  const count = v.visitCount ?? 0;
  if (count < 2) return 0;
  return ((count - 1) / Math.max(DAY_MS, v.lastSeenAt - v.firstSeenAt)) * ms;
}

/**
 * Visits `v` is expected to make in `ms`, for the evidence of its silence (relink.ts
 * silenceBits()): its rate estimated with a prior worth one visit per
 * MATCH.relinkPriorVisitDays (a Gamma prior), so that a visitor seen a few times close together
 * (one session's calls) is not taken for a frequent one. missedVisits() above, the gate of
 * "quiet long enough", keeps its own plainer rate; none for a visitor seen once (no rate).
 */
export function expectedVisits(v: Candidate, ms: number): number {
  const count = v.visitCount ?? 0;
  if (count < 2) return 0;
  return (count / (v.lastSeenAt - v.firstSeenAt + MATCH.relinkPriorVisitDays * DAY_MS)) * ms;
}

/**
 * How many visitors share the visit's stable signature, from the store's counts per blocking
 * key: the least crowded of the drift-robust keys (each leaves some components out), since a
 * browser that shares every one of them with N visitors hides among at most N.
 */
export function signatureCrowding(crowding: KeyCrowding): number {
  const counts = (['r', 'f', 'l'] as const).map((k) => crowding[k]).filter((n): n is number => n !== undefined);
  return counts.length ? Math.min(...counts) : 0;
}

/**
 * Evidence against "a browser never seen" when the visit repeats (repeatedSignature()),
 * drift-prone components included (screen, timezone, languages, font and colour preferences),
 * the signature the candidate showed last and no other visitor ever did, while its hardware is
 * common: the other devices of its kind all differ somewhere, so an unseen one would have to
 * coincide where they do not. log2 of the look-alike visitors that differ, at most MATCH.exactSignatureMaxBits.
 */
function exactSignatureBits(crowding: KeyCrowding): number {
  if (MATCH.exactSignatureMaxBits <= 0) return 0;
  return Math.min(MATCH.exactSignatureMaxBits, Math.log2(Math.max(1, signatureCrowding(crowding))));
}

/**
 * Which signature of the candidate's last visit the visit repeats while no other visitor showed
 * it, in words, or null: the complete one (the `x:` key); in a private window also the device
 * with its user's settings (the `d:` key), since Safari's and Firefox's private windows
 * randomise canvas and audio and so make the complete signature their own.
 */
function repeatedSignature(visit: VisitContext, c: Candidate, crowding: KeyCrowding): string | null {
  if (crowding.x === 1 && repeatsLast(visit.features, c.profile, COMPONENT_NAMES)) return 'its complete signature';
  const device = visit.features.privateMode && MATCH.privateDeviceSignature > 0 && crowding.d === 1;
  return device && repeatsLast(visit.features, c.profile, BLOCKING_KEYS.d!) ? 'its device and settings' : null;
}

/** The deciding evidence of a link, for `confidence.comment`. */
function linkEvidence(s: CandidateScore, exclusiveNetwork: boolean, lookalikes: number, anonymity: number, signature: { what: string; others: number } | null): string {
  const signals = s.contradictions.length ? `signals match but for ${s.contradictions.join(', ')}` : 'signals match';
  const network = exclusiveNetwork
    ? s.sameNetwork ? 'seen on this network (few visitors use it)' : "seen on another network of this household (its other visitors were seen there)"
    : s.sameNetwork ? 'seen on this shared network' : s.sameWideNetwork ? 'seen in this network block' : 'not seen on this network';
  const set = lookalikes > 1 || anonymity > 1 ? `; ${Math.max(lookalikes, anonymity)} look-alike visitors` : '';
  const repeated = signature && signature.others > 0 ? `; ${signature.what}, which none of the ${signature.others} other visitors of its hardware showed` : '';
  return `${signals}; ${network}${set}${repeated}`;
}

/**
 * The visit's network belongs to a pool the candidate hops through (carrier NAT, a dynamic
 * block): it was seen on several other networks of the same wider block.
 */
function pooled(visit: VisitContext, c: Candidate): boolean {
  return visit.network !== null && hopsThrough(visit.network, c.profile.nets, MATCH.poolNetworks);
}


/**
 * The candidate took MATCH.burstJars storages or more within MATCH.burstWindowHours, each on a
 * visit without a token (the jars of its first visit and of every tokenless link): more
 * storage losses in a day than one browser has, and what identical devices arriving one after
 * another on one network look like (an office's machines of one image, a device farm). Until
 * two of them use their tokens in turn (jars.ts proves the twins then), each such link made
 * the next one easier: the ID looked like a rare fingerprint with a browser that keeps losing
 * its storage. Private windows' jars do not count (they live beside the normal one).
 */
function storageBurst(c: Candidate, now: number): boolean {
  if (MATCH.burstJars <= 0) return false;
  const since = now - MATCH.burstWindowHours * 3_600_000;
  return (c.profile.jars ?? []).filter((j) => !j.p && j.first >= since).length >= MATCH.burstJars;
}

/**
 * How plausible it is that the candidate's browser arrives without its token (log2): a
 * private window never has it; a browser already seen losing its storage (several jars) loses
 * it again; WebKit drops script storage after 7 days without a visit; otherwise a browser
 * that came back with its token before still has it, unless the user cleared it.
 */
function storageLossBits(visit: VisitContext, c: Candidate, lookalikesExist: boolean): number {
  if (visit.features.privateMode) return 0;
  const normal = (c.profile.jars ?? []).filter((j) => !j.p);
  if (normal.length >= 2) return 0;
  // Its storage was last seen in use this long ago: the shorter, the less likely it is lost
  // since (a tokenless look-alike an hour after the candidate used its storage is more likely
  // another device of the same kind).
  const lastUse = lastStorageUse(c);
  const recency = lastUse > 0 && lookalikesExist ? Math.max(-MATCH.recentStorageMaxBits, Math.min(0, Math.log2(Math.max(1, visit.now - lastUse) / (MATCH.recentStorageDays * DAY_MS)))) : 0;
  if (c.lastTokenAt === null) return recency;
  const capped = visit.features.values.vendor === WEBKIT_VENDOR;
  if (capped && visit.now - c.lastTokenAt >= STORAGE_CAP_MS) return 0;
  return MATCH.tokenShouldBeAliveBits + recency;
}

/** When the candidate's storage was last seen in use (its token, or its normal jars; private windows' aside), 0 if never. */
export function lastStorageUse(c: Candidate): number {
  return Math.max(c.lastTokenAt ?? 0, ...(c.profile.jars ?? []).filter((j) => !j.p).map((j) => j.last));
}

const DAY_MS = 24 * 3600 * 1000;

/**
 * The candidate's browser is expected to arrive without its token: a private window, a browser
 * already seen losing its storage (several jars), or a WebKit browser whose script storage has
 * expired (7 days without a visit).
 */
function storageExpectedLost(visit: VisitContext, c: Candidate): boolean {
  if (visit.features.privateMode) return true;
  if ((c.profile.jars ?? []).filter((j) => !j.p && !j.x).length >= 2) return true;
  return visit.features.values.vendor === WEBKIT_VENDOR && visit.now - (c.lastTokenAt ?? c.lastSeenAt) >= STORAGE_CAP_MS;
}

/** WebKit browsers (all iOS browsers, Safari) report this vendor and cap script storage. */
const WEBKIT_VENDOR = 'Apple Computer, Inc.';
const STORAGE_CAP_MS = 7 * 24 * 3600 * 1000;

/** Every component of the visit equals the candidate's latest value. */
function isExact(features: Features, profile: VisitorProfile): boolean {
  return repeatsLast(features, profile, COMPONENT_NAMES);
}

/** The visit shows, in each of `names` it has, the value the profile showed last. */
function repeatsLast(features: Features, profile: VisitorProfile, names: readonly ComponentName[]): boolean {
  return names.every((name) => {
    const value = features.values[name];
    return value === undefined || profile.c[name]?.[0] === value;
  });
}

/**
 * A visit with a valid token: the token names the visitor. Signals that contradict the
 * visitor hard (another platform, architecture or browser family: the token was copied to
 * another machine, or a user-agent switcher is at work) do not override it, since signals can
 * be spoofed and a token cannot; the confidence drops and the comment says why.
 */
export function judgeTokenVisit(visit: VisitContext, candidate: Candidate): Confidence {
  const s = scoreCandidate(visit, candidate);
  if (s.vetoed) return confidence(MATCH_CONFIDENCE.tokenOtherDevice, `token presented by a different-looking device (${s.contradictions.join(', ')})`);
  if (s.score < 0) return confidence(MATCH_CONFIDENCE.tokenDrifted, 'token valid, signals changed a lot');
  return confidence(MATCH_CONFIDENCE.token);
}
