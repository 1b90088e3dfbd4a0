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
import { COMPONENTS, COMPONENT_NAMES } from './components.js';
import { isDowngrade, type Features } from './features.js';
import type { VisitorProfile } from './profile.js';

export const CONFIDENCE_VERSION = '1.0';

export interface Candidate {
  visitorId: string;
  firstSeenAt: number;
  lastSeenAt: number;
  /** Last visit that brought this visitor's own valid token; null if none did since creation. */
  lastTokenAt: number | null;
  profile: VisitorProfile;
}

export interface VisitContext {
  features: Features;
  /** networkPrefix() of the client IP. */
  network: string | null;
  /** normaliseAcceptLanguage() of the header. */
  acceptLanguage: string | null;
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
  sameLanguage: boolean;
}

/** Tunables, in log2 units unless said otherwise. */
export const MATCH = {
  /** Below this a candidate is not a match at all. */
  minScore: 20,
  /** Without weak evidence a unique match needs this much. */
  strongScore: 34,
  /** Candidates within this of the best are indistinguishable look-alikes. */
  tieMargin: 6,
  /** Penalty for a change of a component that already changed on this visitor. */
  knownVariablePenalty: 0.5,
  /** Visitors on one network from which on it is shared (carrier NAT, office, VPN), not a home. */
  sharedNetworkVisitors: 12,
  /** Font sets at least this similar (Jaccard) count as the same set that gained or lost a font. */
  fontSimilarity: 0.8,
};

/** Jaccard similarity of two sorted, de-duplicated lists. */
/** Confidence by evidence path: 1 - the observed share of wrong answers on that path (calibrated against bench/accuracy). */
export const MATCH_CONFIDENCE = {
  token: 0.995,
  tokenDrifted: 0.9,
  tokenOtherDevice: 0.5,
  homeUnique: 0.98,
  homeAmongLookalikes: 0.85,
  homeSplitHealed: 0.8,
  signalsOnly: 0.85,
  sharedNetworkOnlyLookalike: 0.8,
  newClear: 0.95,
  newAmbiguous: 0.6,
};

export function jaccard(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 && b.length === 0) return 1;
  const setB = new Set(b);
  let common = 0;
  for (const x of a) if (setB.has(x)) common++;
  return common / (a.length + b.length - common);
}

export function scoreCandidate(visit: VisitContext, candidate: Candidate): CandidateScore {
  const { values, fonts } = visit.features;
  const profile = candidate.profile;
  let score = 0;
  let vetoed = false;
  const contradictions: string[] = [];
  for (const name of COMPONENT_NAMES) {
    const value = values[name];
    const history = profile.c[name];
    if (value === undefined || !history || history.length === 0) continue;
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
    // A component this browser has already shown several values for (anti-fingerprinting noise,
    // a monitor it keeps switching) says little when it changes again.
    score -= !spec.veto && history.length >= 2 ? Math.min(spec.mismatch, MATCH.knownVariablePenalty) : spec.mismatch;
    contradictions.push(name);
    if (spec.veto) vetoed = true;
  }
  const ua = values.user_agent;
  const lastUa = profile.c.user_agent?.[0];
  if (ua && lastUa && isDowngrade(ua, lastUa)) {
    // An older browser or OS release than this visitor already ran: another browser.
    score -= 20;
    vetoed = true;
    contradictions.push('version_downgrade');
  }
  return {
    candidate,
    score,
    vetoed,
    contradictions,
    sameNetwork: visit.network !== null && profile.nets.includes(visit.network),
    sameLanguage: visit.acceptLanguage !== null && profile.langs.includes(visit.acceptLanguage),
  };
}

export type MatchPath = 'exact' | 'fuzzy' | 'cluster' | 'new';

export type Decision =
  | { kind: 'link'; visitorId: string; path: Exclude<MatchPath, 'new'>; confidence: Confidence }
  | { kind: 'new'; path: 'new'; confidence: Confidence };

const confidence = (score: number, comment?: string): Confidence => ({
  score: Math.round(score * 1000) / 1000,
  version: CONFIDENCE_VERSION,
  ...(comment ? { comment } : {}),
});

/**
 * Two look-alike visitors are proven to be different browsers when the older one still came
 * back with its own token after the younger one was created. Otherwise the younger one may
 * just be the older one after its storage was cleared (a split, which we heal by answering
 * with the oldest).
 */
export function provenDistinct(a: Candidate, b: Candidate): boolean {
  const [older, younger] = a.firstSeenAt <= b.firstSeenAt ? [a, b] : [b, a];
  return older.lastTokenAt !== null && older.lastTokenAt > younger.firstSeenAt;
}

const byAge = (a: CandidateScore, b: CandidateScore) => a.candidate.firstSeenAt - b.candidate.firstSeenAt;

/** Look-alikes none of which is proven distinct from another: plausibly one browser, split. */
function oneBrowser(group: readonly CandidateScore[]): boolean {
  for (let i = 0; i < group.length; i++) {
    for (let j = i + 1; j < group.length; j++) if (provenDistinct(group[i]!.candidate, group[j]!.candidate)) return false;
  }
  return true;
}

/**
 * Decide a visit that brought no valid token.
 *
 * - No plausible candidate: a new visitor.
 * - On a private network (few visitors seen there: a home), look-alikes (candidates within
 *   `tieMargin` of the best) seen on this network decide: one of them, or the oldest of
 *   several that may be one browser split by cleared storage; proven-distinct twins cannot be
 *   told apart: a new visitor.
 * - On a shared network (carrier NAT, office, VPN) or a new one, the network says little: a
 *   match is linked only when the fingerprint is unique in the data and strong, or when it is
 *   the only one of its hardware class ever seen on this network.
 */
export function decideWithoutToken(visit: VisitContext, candidates: readonly Candidate[], crowding: KeyCrowding): Decision {
  const scored = candidates
    .map((c) => scoreCandidate(visit, c))
    .filter((s) => !s.vetoed && s.score >= MATCH.minScore)
    .sort((a, b) => b.score - a.score || byAge(a, b));
  const best = scored[0];
  if (!best) return { kind: 'new', path: 'new', confidence: confidence(MATCH_CONFIDENCE.newClear) };

  const lookalikes = scored.filter((s) => s.score >= best.score - MATCH.tieMargin);
  // Network evidence weighs every plausible candidate, not only the top ones: the true visitor
  // may have drifted (an OS update) while a stranger of the same model has not.
  const onNetwork = scored.filter((s) => s.sameNetwork);
  const pathOf = (s: CandidateScore) => (lookalikes.length > 1 ? 'cluster' : isExact(visit.features, s.candidate.profile) ? 'exact' : 'fuzzy');
  const sharedNetwork = (crowding.p ?? 0) >= MATCH.sharedNetworkVisitors;

  if (!sharedNetwork && onNetwork.length === 1) {
    const only = onNetwork[0]!;
    return lookalikes.length === 1 && only === best
      ? link(only, pathOf(only), MATCH_CONFIDENCE.homeUnique)
      : link(only, pathOf(only), MATCH_CONFIDENCE.homeAmongLookalikes, 'look-alike visitors exist; linked by network');
  }
  if (!sharedNetwork && onNetwork.length > 1) {
    if (oneBrowser(onNetwork)) {
      return link([...onNetwork].sort(byAge)[0]!, 'cluster', MATCH_CONFIDENCE.homeSplitHealed, 'several look-alike visitors on this network, likely one browser');
    }
    return { kind: 'new', path: 'new', confidence: confidence(MATCH_CONFIDENCE.newAmbiguous, 'identical-looking devices on this network; none can be picked') };
  }

  const uniqueInData = lookalikes.length === 1 && (crowding.f ?? 0) <= 1 && (crowding.l ?? 0) <= 1;
  if (uniqueInData && best.score >= MATCH.strongScore) {
    return link(best, pathOf(best), MATCH_CONFIDENCE.signalsOnly, 'matched on signals only');
  }
  if (onNetwork.length === 1 && (crowding.n ?? 0) <= 1 && best === onNetwork[0]) {
    return link(best, pathOf(best), MATCH_CONFIDENCE.sharedNetworkOnlyLookalike, 'the only visitor of this kind seen on this shared network');
  }
  return {
    kind: 'new',
    path: 'new',
    confidence: confidence(MATCH_CONFIDENCE.newAmbiguous, 'look-alike visitors exist; not linked without distinctive evidence'),
  };
}

function link(s: CandidateScore, path: Exclude<MatchPath, 'new'>, score: number, comment?: string): Decision {
  return { kind: 'link', visitorId: s.candidate.visitorId, path, confidence: confidence(score, comment) };
}

/** Every component of the visit equals the candidate's latest value. */
function isExact(features: Features, profile: VisitorProfile): boolean {
  return COMPONENT_NAMES.every((name) => {
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
