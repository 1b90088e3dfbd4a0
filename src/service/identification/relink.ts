/**
 * Relinking (pure): the one case where a valid visitor token does not keep its ID.
 *
 * A browser that lost its storage comes back without a token; when look-alike visitors exist
 * and none is singled out with a clear margin (it came from a carrier NAT, not from home), it
 * gets a new ID, and its new storage keeps that ID from then on. A later visit of that storage
 * may carry much better evidence (the browser's own home network). Relinking asks, on such a
 * visit, the question the first tokenless visit could not answer: leaving the token aside, do
 * the signals and the network single out an earlier visitor? If they do, with a clear margin
 * and nothing that proves two browsers, the storage moves back: the answer names the earlier
 * ID and its token is re-issued for it (same storage jar), so every later visit returns there.
 *
 * It never touches an established ID. The token's ID must be young and of doubtful origin:
 * - created by a "new visitor" decision while look-alikes existed (`profile.contested`: the
 *   matcher saw compatible candidates and could not choose, which is what a storage loss in a
 *   crowd looks like), never proven shared (no twins), this jar not revoked;
 * - at most MATCH.relinkMaxVisits visits and MATCH.relinkMaxDays days old.
 * The earlier ID must
 * - be singled out by the tokenless decision (matcher.ts, the token's own ID left out of the
 *   candidates and of the anonymity counts, every other look-alike still a rival; the earlier
 *   IDs weighed with their silence since the young ID appeared, silenceBits()) with its clear
 *   margin (MATCH.linkMarginBits), on a network few visitors use (a home) that is not a
 *   block of a pool the browser hops through: neither ID was seen on MATCH.relinkPoolNetworks
 *   other blocks of its wider range (carrier NAT, a dynamic range; stricter than tokenless
 *   linking, where the candidate alone must have hopped through two);
 * - be older than the young ID, and its storage must have ended before the young ID was
 *   created: one browser uses one storage jar at a time, so an earlier ID whose own token came
 *   back after the young ID appeared belongs to another browser;
 * - have been silent since the young ID appeared for longer than it takes it, at its own rate
 *   of visits, to come back (MATCH.relinkQuietVisits): an identical device of the same home
 *   that simply has not visited lately is not taken for this browser. An ID seen once has no
 *   rate, so it is never a target;
 * - not be explained away: no other look-alike ID that may be its browser after a storage loss
 *   of its own (successor() in matcher.ts) had its storage in use since the young ID appeared;
 *   the earlier browser then lives on there, and the young ID is as likely another device;
 * - be compatible in every stable hardware and OS signal with the visit and with every value
 *   the young ID has shown (compatibility.ts); the visit must be compatible with the young ID
 *   too (a token copied to another device says nothing about the browser behind it).
 */
import { incompatibility, profileIncompatibility } from './compatibility.js';
import { lookupKeys } from './features.js';
import { decideWithoutToken, expectedVisits, MATCH, missedVisits, successor, type Candidate, type KeyCrowding, type MatchPath, type VisitContext } from './matcher.js';
import { keysChanged } from '../store/visitors.js';
import { hopsThrough } from './network.js';
import type { VisitorProfile } from './profile.js';

const DAY_MS = 24 * 3600 * 1000;

/** A stored visitor as relinking reads it. */
export interface RelinkVisitor extends Candidate {
  visitCount: number;
  /** Blocking keys written at its last visit. */
  keys: readonly string[];
}

/**
 * The token's visitor is young and of doubtful origin: worth reading the candidates of the
 * visit for (the store loads them for such token visits only).
 */
export function relinkable(v: { firstSeenAt: number; visitCount: number; profile: VisitorProfile }, now: number): boolean {
  return (
    MATCH.relink > 0 &&
    v.profile.contested === true &&
    !v.profile.twins &&
    v.visitCount <= MATCH.relinkMaxVisits &&
    now - v.firstSeenAt <= MATCH.relinkMaxDays * DAY_MS
  );
}

/**
 * The rules that need no candidate, by the one that keeps the token's ID (null when none does):
 * when one does, no candidate read can relink this visit, so none is made.
 */
export function relinkRuledOut(visit: VisitContext, young: { firstSeenAt: number; visitCount: number; profile: VisitorProfile }, jar: string | undefined): string | null {
  if (!relinkable(young, visit.now)) return 'not relinkable';
  if (jar !== undefined && young.profile.jars?.some((j) => j.i === jar && j.x)) return 'jar revoked';
  if (incompatibility(visit.features, young.profile) !== null) return 'visit incompatible with the young ID';
  // A pool either ID hops through (below): the young ID's blocks alone may settle it.
  if (visit.network !== null && hopsThrough(visit.network, young.profile.nets, MATCH.relinkPoolNetworks)) return 'a pool network';
  return null;
}

/**
 * A relinkable young ID's visit is weighed again (its candidates read) when its evidence
 * changed since it was last weighed: its lookup keys differ from those of its last visit
 * (`keys`, written at every visit), or MATCH.relinkRecheckHours have passed. Otherwise the
 * answer would be the last one: the token keeps its ID.
 */
export function relinkCheckDue(v: { keys: readonly string[]; profile: VisitorProfile }, keys: readonly string[], now: number): boolean {
  const checkedAt = v.profile.relinkCheckedAt;
  return checkedAt === undefined || now - checkedAt >= MATCH.relinkRecheckHours * 3600 * 1000 || keysChanged(v.keys, keys);
}

export interface RelinkFacts<V extends RelinkVisitor> {
  visit: VisitContext;
  /** The visitor the token named. */
  young: V;
  /** The token's jar (absent in older tokens). */
  jar: string | undefined;
  /** Candidates of the visit's blocking keys (the young visitor among them, usually). */
  candidates: readonly V[];
  crowding: KeyCrowding;
}

export interface Relink<V extends RelinkVisitor> {
  /** The earlier visitor the storage moves to. */
  target: V;
  path: Exclude<MatchPath, 'new'>;
  /** The tokenless decision's calibrated posterior, with a comment naming the relink. */
  score: number;
  comment: string;
}

/** The earlier visitor to move the token's storage to, or null to keep the token's ID. */
export function decideRelink<V extends RelinkVisitor>(f: RelinkFacts<V>): Relink<V> | null {
  // Only a candidate that passes the rules on the target alone can be relinked to: without
  // one, the tokenless decision (most of the cost) would be weighed for nothing.
  const { young, visit } = f;
  if (!f.candidates.some((c) => c.visitorId !== young.visitorId && targetRuledOut(c, young, visit.now) === null)) return null;
  const verdict = explainRelink(f);
  return 'target' in verdict ? verdict : null;
}

/**
 * The rules on the earlier visitor alone, by the one that keeps the token's ID (null when none
 * does): it must be older than the young ID, its storage out of use since the young ID
 * appeared, quiet since, and its profile compatible with the young ID's.
 */
function targetRuledOut(target: RelinkVisitor, young: RelinkVisitor, now: number): string | null {
  if (target.firstSeenAt >= young.firstSeenAt) return 'target younger';
  if (!storageEndedBy(target, young.firstSeenAt)) return "target's storage still in use";
  if (missedVisits(target, now - young.firstSeenAt) < MATCH.relinkQuietVisits) return 'target not quiet';
  if (profileIncompatibility(young.profile, target.profile) !== null) return 'profiles incompatible';
  return null;
}

/** decideRelink() with the first rule that kept the token's ID named (bench/accuracy/diagnose.ts). */
export function explainRelink<V extends RelinkVisitor>(f: RelinkFacts<V>): Relink<V> | { kept: string } {
  const { visit, young } = f;
  const ruledOut = relinkRuledOut(visit, young, f.jar);
  if (ruledOut !== null) return { kept: ruledOut };
  const others = f.candidates.filter((c) => c.visitorId !== young.visitorId);
  if (others.length === 0 || visit.network === null) return { kept: 'no other candidate' };

  const decision = decideWithoutToken(visit, others, withoutVisitor(f.crowding, lookupKeys(visit.features, visit.network), young.keys), {
    strict: true,
    extraBits: (c) => silenceBits(c, young, visit.now),
  });
  if (decision.kind !== 'link') return { kept: 'no earlier ID singled out' };
  const target = others.find((c) => c.visitorId === decision.visitorId)!;
  // The deciding evidence must be a network few visitors use (a home), and not a block of a
  // pool that this browser, under either ID, was seen hopping through (carrier NAT, a dynamic
  // ISP range).
  if (!decision.exclusiveNetwork) return { kept: 'not a home network' };
  if (hopsThrough(visit.network, [...target.profile.nets, ...young.profile.nets], MATCH.relinkPoolNetworks)) return { kept: 'a pool network' };
  const ruledOutTarget = targetRuledOut(target, young, visit.now);
  if (ruledOutTarget !== null) return { kept: ruledOutTarget };
  // The target's silence is explained when its browser may live on as another ID whose storage
  // was in use since the young ID appeared (a private window's does not count: it lives beside
  // the normal storage): then the young ID is more likely a browser of its own.
  const livesOn = (c: RelinkVisitor) => c !== target && !storageEndedBy(c, young.firstSeenAt) && successor(c, target, visit.now);
  if (MATCH.relinkLivesOn > 0 && others.some(livesOn)) {
    return { kept: "target's browser may live on as another ID" };
  }
  return {
    target,
    path: decision.path,
    score: decision.confidence.score,
    comment: `relinked: this storage's visitor ID ${young.visitorId}, created while look-alike visitors existed, now matches this earlier visitor: ${decision.evidence}`,
  };
}

/**
 * The evidence of an earlier visitor's silence, log2: could it be the young ID's browser before
 * its storage loss (older, its storage out of use by then), every visit it would have made since
 * at its own rate and did not is log2(e) bits that it is (a Poisson process misses k expected
 * visits with probability e^-k), capped at MATCH.relinkSilenceMaxBits.
 */
export function silenceBits(c: Candidate, young: Candidate, now: number): number {
  if (c.firstSeenAt >= young.firstSeenAt || !storageEndedBy(c, young.firstSeenAt)) return 0;
  return Math.min(MATCH.relinkSilenceMaxBits, Math.LOG2E * expectedVisits(c, now - young.firstSeenAt));
}

/**
 * The crowding counts without one visitor: the young ID is this very browser under the
 * hypothesis being weighed, not another look-alike. Counted where its last visit wrote the
 * same key as this visit (a lower bound of its share: the counts stay conservative).
 */
function withoutVisitor(crowding: KeyCrowding, keys: readonly string[], visitorKeys: readonly string[]): KeyCrowding {
  const own = new Set(visitorKeys);
  const out = { ...crowding };
  for (const key of keys) {
    if (!own.has(key)) continue;
    const kind = key.slice(0, key.indexOf(':'));
    if (out[kind] !== undefined) out[kind] = Math.max(0, out[kind] - 1);
  }
  return out;
}

/**
 * No storage of `v` was in use after `t`: none of its normal jars (private windows live beside
 * the normal storage; revoked jars were another browser's) was used after it, nor, for a
 * visitor without jar records, its token.
 */
function storageEndedBy(v: Candidate, t: number): boolean {
  const jars = v.profile.jars ?? [];
  if (jars.length === 0) return v.lastTokenAt === null || v.lastTokenAt <= t;
  return !jars.some((j) => !j.p && !j.x && j.last > t);
}
