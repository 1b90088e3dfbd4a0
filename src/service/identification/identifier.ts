/**
 * Identification: who is this visitor? One read (the token's visitor or the candidates of the
 * signals; on PostgreSQL with the recent activity the caller asks for), one pure decision
 * (decide-identification.ts), one write: by identify(), or, with plan(), by the caller
 * together with the visit's event. Every visit updates the visitor's
 * profile so drift accumulates.
 */
import type { Confidence, Signals } from '../../protocol/index.js';
import { randomString } from '../store/ids.js';
import type { Store } from '../store/index.js';
import type { PrefetchedActivity } from '../store/recent-activity.js';
import {
  findCandidates,
  loadIdentificationState,
  loadVisitors,
  planInsertVisitor,
  planRecordVisit,
  planRelinkVisit,
  writeVisitor,
  type ActivityAhead,
  type CandidateRead,
  type VisitorRecord,
  type VisitorWrite,
} from '../store/visitors.js';
import { decideIdentification, toKnownVisitor } from './decide-identification.js';
import { extractFeatures, lookupKeys, networkKeys } from './features.js';
import { neighbourNetworks, type HouseholdNetwork } from './household.js';
import { CONFIDENCE_VERSION, MATCH, type MatchPath, type VisitContext } from './matcher.js';
import { networkPrefix } from './network.js';
import { profileFrom } from './profile.js';
import { relinkCheckDue, relinkRuledOut } from './relink.js';
import { createVisitorTokenCodec } from './visitor-token.js';

export interface IdentifyInput {
  workspaceId: string;
  signals: Signals;
  /** The visitor token the agent sent back, unverified. */
  token?: string;
  ip: string;
  /** ms, from ctx.clock(). */
  now: number;
  /**
   * The recent activity the caller will read for the visit's event: on PostgreSQL it is read
   * ahead with the visitor (one round trip) and handed back as `activity`.
   */
  activity?: ActivityAhead;
  /** The service's cookie can keep this browser's token (VisitContext.tokenCookie). */
  tokenCookie?: boolean;
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
  /**
   * How the visitor was resolved (for logs and metrics; not part of the wire format): `relink`
   * when a token's young ID was moved back to an earlier one (relink.ts).
   */
  path: 'token' | 'relink' | MatchPath;
}

export interface Identifier {
  /** Identifies the visitor and writes the visit (the visitor's row and keys). */
  identify(input: IdentifyInput): Promise<IdentifyOutcome>;
  /**
   * Identifies the visitor without writing: `write` holds the visit's writes, for the caller
   * to commit with the visit's event (`insertEvent(..., { visitor: write })`), so that a
   * failure before or at the event leaves no trace of the visit.
   */
  plan(input: IdentifyInput): Promise<{ outcome: IdentifyOutcome; write: VisitorWrite; activity?: PrefetchedActivity }>;
}

/**
 * The other networks of the visit's household and the visitors of its hardware class seen on
 * them (household.ts), read when the candidates were (no token, or a young ID's token) on a
 * network that a few other visitors use: the visitors of this network that are not candidates
 * already, then the keys of their other networks, when they were seen on any. Nothing is read
 * elsewhere (a network nobody else was seen on, or a crowded one). The candidates it returns
 * are those not among `loaded`'s.
 */
async function readHousehold(
  store: Store,
  workspaceId: string,
  visit: VisitContext,
  loaded: CandidateRead,
): Promise<{ household: HouseholdNetwork[]; candidates: VisitorRecord[] }> {
  const visitors = loaded.crowding.p ?? 0;
  if (MATCH.householdNetworks <= 0 || visit.network === null || loaded.candidates.length === 0 || visitors < 1 || visitors >= MATCH.sharedNetworkVisitors) {
    return { household: [], candidates: [] };
  }
  // The visitors of this network: most are candidates already (look-alikes seen here); the rest are read.
  const loadedIds = new Set(loaded.candidates.map((c) => c.visitorId));
  const neighbours = [
    ...loaded.candidates.filter((c) => loaded.networkVisitors.includes(c.visitorId)),
    ...(await loadVisitors(store, workspaceId, loaded.networkVisitors.filter((id) => !loadedIds.has(id)))),
  ];
  const nets = neighbourNetworks(visit.network, neighbours.map((v) => profileFrom(v.profile)), { limit: MATCH.householdNetworks, poolNetworks: MATCH.poolNetworks });
  if (nets.length === 0) return { household: [], candidates: [] };
  const found = await findCandidates(store, workspaceId, nets.flatMap((n) => networkKeys(visit.features, n)));
  const household = nets
    .map((network) => {
      const [lookalikesKey, visitorsKey] = networkKeys(visit.features, network);
      return { network, visitors: found.visitorsPerKey[visitorsKey!] ?? 0, lookalikes: found.visitorsPerKey[lookalikesKey!] ?? 0 };
    })
    .filter((h) => h.visitors < MATCH.sharedNetworkVisitors);
  return { household, candidates: found.candidates.filter((c) => !loadedIds.has(c.visitorId)) };
}

/** 20 characters [A-Za-z0-9], like the reference's visitor IDs. */
export const newVisitorId = (): string => randomString(20);
const newJarId = (): string => randomString(10);

export function createIdentifier(opts: { store: Store; tokenSecret: Uint8Array }): Identifier {
  const { store } = opts;
  const tokens = createVisitorTokenCodec(opts.tokenSecret);

  const plan = async (input: IdentifyInput): Promise<{ outcome: IdentifyOutcome; write: VisitorWrite; activity?: PrefetchedActivity }> => {
    const features = extractFeatures(input.signals);
    const context: VisitContext = { features, network: networkPrefix(input.ip), now: input.now, ...(input.tokenCookie && { tokenCookie: true }) };
    const keys = lookupKeys(features, context.network);
    const claims = input.token ? await tokens.verify(input.token, input.workspaceId, input.now) : null;

    // Read once: the token's visitor (and the candidates of the visit's keys when its ID is
    // young enough to be relinked), or the candidates.
    const loaded = await loadIdentificationState(store, {
      workspaceId: input.workspaceId,
      tokenVisitorId: claims?.visitorId,
      keys,
      ...(input.activity && { activity: input.activity }),
      candidatesForToken: (v) => {
        const visitor = { ...v, profile: profileFrom(v.profile) };
        return relinkRuledOut(context, visitor, claims?.instance) === null && relinkCheckDue(visitor, keys, input.now);
      },
    });
    // The household's other networks, for a visit its candidates were read for.
    const household = await readHousehold(store, input.workspaceId, context, loaded);
    const candidates = [...loaded.candidates, ...household.candidates];
    // Decide purely.
    const decision = decideIdentification({
      visit: household.household.length > 0 ? { ...context, household: household.household } : context,
      token: loaded.tokenVisitor && { visitor: toKnownVisitor(loaded.tokenVisitor), jar: claims?.instance },
      candidates: candidates.map(toKnownVisitor),
      crowding: loaded.crowding,
      fresh: { visitorId: newVisitorId(), jarId: newJarId() },
    });
    // Write once (by the caller, or by identify()).
    const { workspaceId, now } = input;
    const write =
      decision.kind === 'link'
        ? planRecordVisit({ workspaceId, visitor: decision.visitor, now, profile: decision.profile, keys, withToken: decision.withToken })
        : decision.kind === 'relink'
          ? planRelinkVisit({ workspaceId, visitor: decision.visitor, absorbedId: decision.absorbed.visitorId, now, profile: decision.profile, keys })
          : planInsertVisitor({ workspaceId, visitorId: decision.visitorId, now, profile: decision.profile, keys });
    const known = decision.kind === 'create' ? null : decision.visitor;
    const visitorId = decision.kind === 'create' ? decision.visitorId : decision.visitor.visitorId;
    const outcome: IdentifyOutcome = {
      visitorId,
      visitorFound: known !== null,
      confidence: decision.confidence,
      firstSeenAt: known ? known.firstSeenAt : now,
      lastSeenAt: known ? known.lastSeenAt : now,
      token: await tokens.sign(visitorId, workspaceId, now, decision.jar),
      path: decision.path,
    };
    return { outcome, write, ...(loaded.prefetched && { activity: loaded.prefetched }) };
  };

  return {
    plan,
    async identify(input) {
      const { outcome, write } = await plan(input);
      await writeVisitor(store, write);
      return outcome;
    },
  };
}

export { CONFIDENCE_VERSION };
