/**
 * Identification: who is this visitor? One read (the token's visitor or the candidates of the
 * signals), one pure decision (decide-identification.ts), one write. Every visit updates the
 * visitor's profile so drift accumulates.
 */
import type { Confidence, Signals } from '../../protocol/index.js';
import { randomString } from '../store/ids.js';
import type { Store } from '../store/index.js';
import { insertVisitor, loadIdentificationState, recordVisit } from '../store/visitors.js';
import { decideIdentification, toKnownVisitor } from './decide-identification.js';
import { extractFeatures, networkKeys } from './features.js';
import { CONFIDENCE_VERSION, type MatchPath, type VisitContext } from './matcher.js';
import { networkPrefix } from './network.js';
import { createVisitorTokenCodec } from './visitor-token.js';

export interface IdentifyInput {
  workspaceId: string;
  signals: Signals;
  /** The visitor token the agent sent back, unverified. */
  token?: string;
  ip: string;
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

/** 20 characters [A-Za-z0-9], like the reference's visitor IDs. */
export const newVisitorId = (): string => randomString(20);
const newJarId = (): string => randomString(10);

export function createIdentifier(opts: { store: Store; tokenSecret: Uint8Array }): Identifier {
  const { store } = opts;
  const tokens = createVisitorTokenCodec(opts.tokenSecret);

  return {
    async identify(input) {
      const features = extractFeatures(input.signals);
      const visit: VisitContext = { features, network: networkPrefix(input.ip), now: input.now };
      const keys = visitKeys(visit);
      const claims = input.token ? await tokens.verify(input.token, input.workspaceId, input.now) : null;

      // Read once: the token's visitor, or the candidates of the visit's keys.
      const loaded = await loadIdentificationState(store, { workspaceId: input.workspaceId, tokenVisitorId: claims?.visitorId, keys });
      // Decide purely.
      const plan = decideIdentification({
        visit,
        token: loaded.tokenVisitor && { visitor: toKnownVisitor(loaded.tokenVisitor), jar: claims?.instance },
        candidates: loaded.candidates.map(toKnownVisitor),
        crowding: loaded.crowding,
        fresh: { visitorId: newVisitorId(), jarId: newJarId() },
      });
      // Write once.
      const { workspaceId, now } = input;
      if (plan.kind === 'link') {
        await recordVisit(store, { workspaceId, visitor: plan.visitor, now, profile: plan.profile, keys, withToken: plan.withToken });
      } else {
        await insertVisitor(store, { workspaceId, visitorId: plan.visitorId, now, profile: plan.profile, keys });
      }
      const visitorId = plan.kind === 'link' ? plan.visitor.visitorId : plan.visitorId;
      return {
        visitorId,
        visitorFound: plan.kind === 'link',
        confidence: plan.confidence,
        firstSeenAt: plan.kind === 'link' ? plan.visitor.firstSeenAt : now,
        lastSeenAt: plan.kind === 'link' ? plan.visitor.lastSeenAt : now,
        token: await tokens.sign(visitorId, workspaceId, now, plan.jar),
        path: plan.path,
      };
    },
  };
}

export { CONFIDENCE_VERSION };
