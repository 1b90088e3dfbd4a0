/**
 * Identification: who is this visitor? The token first (signed by us, so it cannot be forged),
 * then the signals (exact and fuzzy matching, matcher.ts), then a new visitor. Every visit
 * updates the visitor's profile so drift accumulates.
 */
import type { Kysely } from 'kysely';
import type { Confidence, Signals } from '../../protocol/index.js';
import type { Database } from '../store/schema.js';
import { randomString } from '../store/ids.js';
import { extractFeatures, networkKeys } from './features.js';
import {
  deleteVisitorRows,
  findCandidates,
  insertVisitor,
  loadVisitor,
  recordVisit,
  type IdentificationDb,
  type StoredVisitor,
} from './identity-store.js';
import { idOriginProbability } from './id-origin.js';
import { addJar, observeJarUse, type JarRecord } from './jars.js';
import { CONFIDENCE_VERSION, confidenceOf, decideWithoutToken, judgeTokenVisit, MATCH_CONFIDENCE, type MatchPath, type VisitContext } from './matcher.js';
import { networkPrefix } from './network.js';
import { emptyProfile, updateProfile } from './profile.js';
import { createVisitorTokenCodec } from './visitor-token.js';

export interface IdentifyInput {
  workspaceId: string;
  environmentId: string;
  signals: Signals;
  /** The visitor token the agent sent back, unverified. */
  token?: string;
  ip: string;
  /** Accepted for the record; matching uses the languages signal, which the header mirrors. */
  acceptLanguage?: string;
  userAgentHeader?: string;
  /** ms, from ctx.clock(). */
  now: number;
}

export interface IdentifyOutcome {
  visitorId: string;
  visitorFound: boolean;
  confidence: Confidence;
  firstSeenAt: number;
  /** Previous visit (= now for a new visitor), ms. */
  lastSeenAt: number;
  /** Newly signed token for the agent to persist. */
  token: string;
  /** How the visitor was resolved (for logs and the accuracy benchmark; not part of the wire format). */
  path: 'token' | MatchPath;
}

export interface Identifier {
  identify(input: IdentifyInput): Promise<IdentifyOutcome>;
}

/** The blocking keys of a visit: signal subsets, and the hardware class on this network. */
function visitKeys(visit: VisitContext): string[] {
  return [...visit.features.blockingKeys, ...networkKeys(visit.features, visit.network)];
}

/** Below this probability that the ID is its browser's own, an answer says so in its comment. */
const ORIGIN_COMMENT_BELOW = 0.9;
const CONTESTED_ID_COMMENT = 'the visitor ID was created while look-alike visitors existed; it may stand for another browser';

/**
 * An answer is only as sure as the visitor ID is its browser's own: an ID created while
 * look-alikes existed may stand for a known browser that lost its storage (id-origin.ts); an
 * ID created for other reasons keeps the confidence of its creation (profile.birth).
 */
function inherit(confidence: Confidence, visitor: StoredVisitor): Confidence {
  const { birth, contested } = visitor.profile;
  if (birth === undefined || (!contested && birth >= 1)) return confidence;
  const origin = contested ? idOriginProbability(birth, visitor.visitCount, false) : birth;
  const score = Math.round(confidence.score * origin * 1000) / 1000;
  // A guarded answer says why, unless its own path already did.
  if (origin < ORIGIN_COMMENT_BELOW && confidence.comment === undefined) return { ...confidence, score, comment: CONTESTED_ID_COMMENT };
  return { ...confidence, score };
}

/** 20 characters [A-Za-z0-9], like the reference's visitor IDs. */
export const newVisitorId = (): string => randomString(20);
const newJarId = (): string => randomString(10);

export function createIdentifier(opts: { db: Kysely<Database>; engine: 'sqlite' | 'postgres'; tokenSecret: Uint8Array }): Identifier {
  // The Database type composes IdentificationTables; this module only touches its own tables.
  const db = opts.db as unknown as IdentificationDb;
  const tokens = createVisitorTokenCodec(opts.tokenSecret);

  /** Records the visit (with its `keys`, visitKeys()) on an existing visitor and issues its token for `jar`. */
  async function linkExisting(
    input: IdentifyInput,
    visit: VisitContext,
    keys: string[],
    visitor: StoredVisitor,
    link: { withToken: boolean; jar: string; jars: JarRecord[]; twins: number; confidence: Confidence; path: IdentifyOutcome['path'] },
  ): Promise<IdentifyOutcome> {
    const profile = {
      ...updateProfile(visitor.profile, visit.features, visit.network),
      jars: link.jars,
      ...(link.twins > 0 ? { twins: link.twins } : {}),
    };
    await recordVisit(db, { workspaceId: input.workspaceId, visitor, now: input.now, profile, keys, withToken: link.withToken });
    return {
      visitorId: visitor.visitorId,
      visitorFound: true,
      confidence: link.confidence,
      firstSeenAt: visitor.firstSeenAt,
      lastSeenAt: visitor.lastSeenAt,
      token: await tokens.sign(visitor.visitorId, input.workspaceId, input.now, link.jar),
      path: link.path,
    };
  }

  /** `birth`: the confidence that the browser was never seen; `contested` when look-alikes existed. */
  async function createVisitor(input: IdentifyInput, visit: VisitContext, keys: string[], birth: Confidence, contested = false): Promise<IdentifyOutcome> {
    const visitorId = newVisitorId();
    const jar = newJarId();
    const profile = {
      ...updateProfile(emptyProfile(), visit.features, visit.network),
      jars: addJar([], jar, input.now, visit.features.privateMode),
      birth: birth.score,
      ...(contested ? { contested: true as const } : {}),
    };
    const confidence = contested ? confidenceOf(idOriginProbability(birth.score, 0, true), birth.comment) : birth;
    await insertVisitor(db, { workspaceId: input.workspaceId, visitorId, now: input.now, profile, keys });
    return {
      visitorId,
      visitorFound: false,
      confidence,
      firstSeenAt: input.now,
      lastSeenAt: input.now,
      token: await tokens.sign(visitorId, input.workspaceId, input.now, jar),
      path: 'new',
    };
  }

  return {
    async identify(input) {
      const features = extractFeatures(input.signals);
      const visit: VisitContext = {
        features,
        network: networkPrefix(input.ip),
        now: input.now,
      };
      const keys = visitKeys(visit);

      // 1. A genuine token of this workspace naming a visitor that still exists wins, unless its
      //    jar was revoked because another browser was proven to hold this visitor's ID.
      const claims = input.token ? await tokens.verify(input.token, input.workspaceId, input.now) : null;
      if (claims) {
        const visitor = await loadVisitor(db, input.workspaceId, claims.visitorId);
        if (visitor) {
          const jar = claims.instance ?? newJarId();
          const seen = observeJarUse(visitor.profile.jars ?? [], jar, input.now, features.privateMode);
          if (seen.revoked) {
            return createVisitor(input, visit, keys, confidenceOf(MATCH_CONFIDENCE.newAfterRevokedJar, 'the token was shared with another browser; a new visitor'));
          }
          const twins = (visitor.profile.twins ?? 0) + (seen.conflict ? 1 : 0);
          const confidence = inherit(judgeTokenVisit(visit, visitor), visitor);
          return linkExisting(input, visit, keys, visitor, { withToken: true, jar, jars: seen.jars, twins, confidence, path: 'token' });
        }
      }

      // 2. Signals: exact or fuzzy match among indexed candidates, unique enough.
      const { candidates, crowding } = await findCandidates(db, input.workspaceId, keys);
      const decision = decideWithoutToken(visit, candidates, crowding);
      if (decision.kind === 'link') {
        const visitor = candidates.find((c) => c.visitorId === decision.visitorId)!;
        const jar = newJarId();
        const jars = addJar(visitor.profile.jars ?? [], jar, input.now, features.privateMode);
        return linkExisting(input, visit, keys, visitor, {
          withToken: false, jar, jars, twins: visitor.profile.twins ?? 0, confidence: inherit(decision.confidence, visitor), path: decision.path,
        });
      }

      // 3. A new visitor.
      return createVisitor(input, visit, keys, decision.confidence, decision.contested);
    },
  };
}

/** Forgets a visitor (Server API deletion): its token no longer resolves, its signals no longer match. */
export async function deleteVisitorIdentity(db: Kysely<Database>, workspaceId: string, visitorId: string): Promise<boolean> {
  return deleteVisitorRows(db as unknown as IdentificationDb, workspaceId, visitorId);
}

export { CONFIDENCE_VERSION };
