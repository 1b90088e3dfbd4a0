/**
 * The decision of one identification, pure: from what the store loaded (the visitor of a
 * verified token, or the candidates of the visit's blocking keys) to the plan of what to
 * write and answer. No I/O, no clock, no randomness: the visit's time and fresh IDs come in.
 *
 * Order: a genuine token naming a visitor that still exists wins: signal evidence never
 * re-assigns an established ID (a jar revoked because another browser was proven to hold this
 * visitor's ID keeps the ID too, with a confidence that says the ID is shared). The one
 * exception is relinking (relink.ts): a young ID created while look-alikes existed moves back
 * to the earlier ID the evidence singles out with a clear margin. Without a token: the signals
 * (exact and fuzzy matching among compatible candidates, with a clear margin over the
 * anonymity set); then a new visitor.
 */
import type { Confidence } from '../../protocol/index.js';
import type { VisitorRecord } from '../store/visitors.js';
import { idOriginModel, idOriginProbability } from './id-origin.js';
import { addJar, mergeJars, observeJarUse, type JarRecord } from './jars.js';
import { confidenceOf, decideWithoutToken, judgeTokenVisit, MATCH_CONFIDENCE, type KeyCrowding, type MatchPath, type VisitContext } from './matcher.js';
import { emptyProfile, profileFrom, updateProfile, type VisitorProfile } from './profile.js';
import { decideRelink } from './relink.js';

/** A stored visitor with its profile read. */
export type KnownVisitor = Omit<VisitorRecord, 'profile'> & { profile: VisitorProfile };

export function toKnownVisitor(record: VisitorRecord): KnownVisitor {
  return { ...record, profile: profileFrom(record.profile) };
}

export interface IdentificationFacts {
  visit: VisitContext;
  /** The visitor a verified token named, with the token's jar (absent in older tokens); null without one. */
  token: { visitor: KnownVisitor; jar?: string } | null;
  /**
   * Candidates of the visit's blocking keys; with a token, only loaded when its visitor may be
   * relinked (relink.ts `relinkRuledOut`, `relinkCheckDue`), otherwise empty.
   */
  candidates: readonly KnownVisitor[];
  crowding: KeyCrowding;
  /** Fresh IDs, used when the plan needs them. */
  fresh: { visitorId: string; jarId: string };
}

export type IdentificationPlan =
  /** Record the visit on `visitor` with this profile and issue its token for `jar`. */
  | { kind: 'link'; visitor: KnownVisitor; profile: VisitorProfile; withToken: boolean; jar: string; confidence: Confidence; path: 'token' | Exclude<MatchPath, 'new'> }
  /** Create visitor `visitorId` with this profile and issue its token for `jar`. */
  | { kind: 'create'; visitorId: string; profile: VisitorProfile; jar: string; confidence: Confidence; path: 'new' }
  /**
   * Relink (relink.ts): record the visit on the earlier `visitor` with this profile, retire the
   * token's young visitor `absorbed` (its ID then resolves to `visitor`) and issue `visitor`'s
   * token for the same `jar`.
   */
  | { kind: 'relink'; visitor: KnownVisitor; absorbed: KnownVisitor; profile: VisitorProfile; jar: string; confidence: Confidence; path: 'relink' };

/** Below this probability that the ID is its browser's own, an answer says so in its comment. */
const ORIGIN_COMMENT_BELOW = 0.9;
const CONTESTED_ID_COMMENT = 'the visitor ID was created while look-alike visitors existed; it may stand for another browser';
const REVOKED_JAR_COMMENT = 'this storage was proven to share its visitor ID with another browser';

/**
 * An answer is only as sure as the visitor ID is its browser's own: an ID created while
 * look-alikes existed may stand for a known browser that lost its storage (id-origin.ts); an
 * ID created for other reasons keeps the confidence of its creation (profile.birth).
 */
function inherit(visit: VisitContext, confidence: Confidence, visitor: KnownVisitor): Confidence {
  const { birth, contested } = visitor.profile;
  if (birth === undefined || (!contested && birth >= 1)) return confidence;
  const origin = contested ? idOriginProbability(birth, visitor.visitCount, false, idOriginModel(visit.tokenCookie)) : birth;
  const score = Math.round(confidence.score * origin * 1000) / 1000;
  // A guarded answer says why, unless its own path already did.
  if (origin < ORIGIN_COMMENT_BELOW && confidence.comment === undefined) return { ...confidence, score, comment: CONTESTED_ID_COMMENT };
  return { ...confidence, score };
}

function link(
  visit: VisitContext,
  visitor: KnownVisitor,
  l: {
    withToken: boolean;
    jar: string;
    jars: JarRecord[];
    twins: number;
    confidence: Confidence;
    path: 'token' | Exclude<MatchPath, 'new'>;
    /** The visit weighed the token's young ID for relinking and kept it (relinkCheckDue). */
    relinkChecked?: boolean;
  },
): IdentificationPlan {
  const profile = {
    ...updateProfile(visitor.profile, visit.features, visit.network),
    jars: l.jars,
    ...(l.twins > 0 ? { twins: l.twins } : {}),
    ...(l.relinkChecked ? { relinkCheckedAt: visit.now } : {}),
  };
  return { kind: 'link', visitor, profile, withToken: l.withToken, jar: l.jar, confidence: l.confidence, path: l.path };
}

/**
 * The storage of `young` moves to the earlier `target`: the visit is recorded on the target,
 * which takes over the young ID's jars (so the jar rules keep working: if the target's own
 * storage comes back, this jar is proven to be another browser's and revoked).
 */
function relinkTo(visit: VisitContext, target: KnownVisitor, young: KnownVisitor, jar: string, confidence: Confidence): IdentificationPlan {
  const jars = observeJarUse(mergeJars(target.profile.jars ?? [], young.profile.jars ?? []), jar, visit.now, visit.features.privateMode).jars;
  const profile = { ...updateProfile(target.profile, visit.features, visit.network), jars };
  return { kind: 'relink', visitor: target, absorbed: young, profile, jar, confidence, path: 'relink' };
}

/** `birth`: the confidence that the browser was never seen; `contested` when look-alikes existed. */
function create(facts: IdentificationFacts, birth: Confidence, contested = false): IdentificationPlan {
  const { visit, fresh } = facts;
  const profile = {
    ...updateProfile(emptyProfile(), visit.features, visit.network),
    jars: addJar([], fresh.jarId, visit.now, visit.features.privateMode),
    birth: birth.score,
    // A contested ID's creation weighed the look-alikes a relink would weigh (relinkCheckDue).
    ...(contested ? { contested: true as const, relinkCheckedAt: visit.now } : {}),
  };
  const confidence = contested ? confidenceOf(idOriginProbability(birth.score, 0, true, idOriginModel(visit.tokenCookie)), birth.comment) : birth;
  return { kind: 'create', visitorId: fresh.visitorId, profile, jar: fresh.jarId, confidence, path: 'new' };
}

/**
 * Diagnostics only (bench/accuracy/diagnose.ts): called with every tokenless decision, and
 * with every token visit whose young ID was weighed for relinking, when set. Never set by the
 * service.
 */
export const identificationProbe: {
  tokenless?: (facts: IdentificationFacts, plan: IdentificationPlan) => void;
  /** Token visits whose young ID was weighed for relinking (candidates loaded). */
  relinkable?: (facts: IdentificationFacts, plan: IdentificationPlan) => void;
} = {};

export function decideIdentification(facts: IdentificationFacts): IdentificationPlan {
  const plan = decideIdentificationInner(facts);
  if (!facts.token) identificationProbe.tokenless?.(facts, plan);
  else if (facts.candidates.length > 0) identificationProbe.relinkable?.(facts, plan);
  return plan;
}

function decideIdentificationInner(facts: IdentificationFacts): IdentificationPlan {
  const { visit } = facts;
  if (facts.token) {
    const { visitor } = facts.token;
    const jar = facts.token.jar ?? facts.fresh.jarId;
    const weighed = facts.candidates.length > 0;
    if (weighed) {
      const relink = decideRelink({ visit, young: visitor, jar: facts.token.jar, candidates: facts.candidates, crowding: facts.crowding });
      if (relink) return relinkTo(visit, relink.target, visitor, jar, inherit(visit, confidenceOf(relink.score, relink.comment), relink.target));
    }
    const seen = observeJarUse(visitor.profile.jars ?? [], jar, visit.now, visit.features.privateMode);
    const twins = (visitor.profile.twins ?? 0) + (seen.conflict ? 1 : 0);
    // The token keeps its ID; a revoked jar's browser is the one that was linked by mistake.
    const confidence = seen.revoked ? confidenceOf(MATCH_CONFIDENCE.revokedJar, REVOKED_JAR_COMMENT) : inherit(visit, judgeTokenVisit(visit, visitor), visitor);
    return link(visit, visitor, { withToken: true, jar, jars: seen.jars, twins, confidence, path: 'token', relinkChecked: weighed });
  }

  const decision = decideWithoutToken(visit, facts.candidates, facts.crowding);
  if (decision.kind === 'link') {
    const visitor = facts.candidates.find((c) => c.visitorId === decision.visitorId)!;
    const jar = facts.fresh.jarId;
    const jars = addJar(visitor.profile.jars ?? [], jar, visit.now, visit.features.privateMode);
    const confidence = inherit(visit, decision.confidence, visitor);
    return link(visit, visitor, { withToken: false, jar, jars, twins: visitor.profile.twins ?? 0, confidence, path: decision.path });
  }
  return create(facts, decision.confidence, decision.contested);
}
