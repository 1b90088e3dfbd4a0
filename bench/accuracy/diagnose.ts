/**
 * `npx tsx --import ./bench/compiled-code.mjs bench/accuracy/diagnose.ts [--browsers N --days D --seed S --match name=value]`
 * Where re-identification is lost: runs the simulation with concurrency 1 and a probe on every
 * tokenless decision (decide-identification.ts `identificationProbe`), then classifies each
 * visit without a token (after a storage loss, in a private window, first visits) by what
 * happened to the browser's original ID: not retrieved by the candidate query, ruled out by a
 * hard rule, vetoed or below the minimum score, outweighed (by "a browser never seen" or by
 * another candidate: the browser's own younger ID, another browser's), or linked elsewhere.
 * Token visits of a browser's own young ID (not its original) that were weighed for relinking
 * are classified by the rule that kept the token's ID (relink.ts explainRelink), or the relink.
 * Where the original was not retrieved, a section of its own says where it had been seen: on
 * the visit's network, only elsewhere, or elsewhere but on a network that another visitor of
 * this one was seen on too (a household the service can link: household.ts).
 *
 * DIAG_COHORT=<cohort> classifies only the visits of that cohort's browsers (the report's
 * cohort names, e.g. clears-between-page-views). DIAG_CROWD_OWNERS=1 says, for an original
 * crowded out of a key, how many of the newer IDs on it are the browser's own (`>8(own 9)`:
 * nine or more), and the storage-loss cohorts and IDs so far of those browsers.
 * DIAG_TRACE=<cohort> (DIAG_TRACE_N browsers, 3 by default) prints every visit of the first
 * browsers of that cohort: its storage jar, condition, network, which of the browser's IDs
 * answered (`id#0` its original), and for a visit without a token the network and key counts,
 * the candidates read and the answer's comment. DIAG_SHORT=1 counts, for each distinguishable
 * visit that got a new ID while its original was weighed, how many bits more for the original
 * would have answered with it.
 */
import { parseArgs } from 'node:util';
import { identificationProbe, type IdentificationFacts, type IdentificationPlan } from '../../src/service/identification/decide-identification.js';
import { incompatibility } from '../../src/service/identification/compatibility.js';
import { extractFeatures, networkKeys } from '../../src/service/identification/features.js';
import { decideWithoutToken, lastStorageUse, MATCH, missedVisits, scoreCandidate, signatureCrowding, successor, type Candidate } from '../../src/service/identification/matcher.js';
import { explainRelink, silenceBits } from '../../src/service/identification/relink.js';
import { hopsThrough, inWiderNetwork, networkPrefix, widerNetwork } from '../../src/service/identification/network.js';
import { CANDIDATES_PER_KEY } from '../../src/service/store/visitors.js';
import { renderVisit } from './render-visit.js';
import { applyMatchOverrides } from './match-overrides.js';
import { planAllVisits } from './schedule.js';
import { runSimulation } from './simulate.js';

const { values } = parseArgs({
  options: {
    browsers: { type: 'string', default: '2000' },
    days: { type: 'string', default: '30' },
    seed: { type: 'string', default: 'tessera-1' },
    match: { type: 'string', multiple: true, default: [] },
  },
});
applyMatchOverrides(MATCH, values.match);
const browsers = Number(values.browsers);
const days = Number(values.days);
const seed = values.seed;

interface Probe { facts: IdentificationFacts; plan: IdentificationPlan }
const probes: Probe[] = [];
const relinkProbes: Probe[] = [];
identificationProbe.tokenless = (facts, plan) => probes.push({ facts, plan });
identificationProbe.relinkable = (facts, plan) => relinkProbes.push({ facts, plan });

const result = await runSimulation({ seed, browsers, days, concurrency: 1 });
identificationProbe.tokenless = undefined;
identificationProbe.relinkable = undefined;
const visits = planAllVisits(seed, result.population.browsers, days);
const { records } = result;

// Which visits went without a token: the first visit of each jar (the simulation keeps one per jar).
const seenJar = new Set<string>();
const tokenless: number[] = [];
visits.forEach((v, i) => {
  if (!seenJar.has(v.jar)) tokenless.push(i);
  seenJar.add(v.jar);
});
if (tokenless.length !== probes.length) throw new Error(`probes ${probes.length} != tokenless visits ${tokenless.length}`);

const original = new Map<number, string>();
const owner = new Map<string, number>();
for (const r of records) {
  if (!r.serviceId) continue;
  if (!original.has(r.browser)) original.set(r.browser, r.serviceId);
  if (!owner.has(r.serviceId)) owner.set(r.serviceId, r.browser);
}

const counts = new Map<string, Map<string, number>>();
const add = (condition: string, what: string) => {
  const m = counts.get(condition) ?? new Map<string, number>();
  m.set(what, (m.get(what) ?? 0) + 1);
  counts.set(condition, m);
};

// The limit's original ID per browser: a visit the limit gave it to was distinguishable. The
// attainable limit by default (what signals and networks can tell); DIAG_LIMIT=oracle for the
// distinguishability limit.
const LIMIT = process.env.DIAG_LIMIT === 'oracle' ? 'oracle' : 'attainable';
const limitId = (r: (typeof records)[number]) => (LIMIT === 'oracle' ? r.oracleId : r.attainableId);
const limitOriginal = new Map<number, string>();
for (const r of records) if (!limitOriginal.has(r.browser)) limitOriginal.set(r.browser, limitId(r));

// Every key each ID wrote, and when (replays the store's visitor_keys, relinks aside).
const keyIndex = new Map<string, Map<string, number>>();
// The networks each ID was seen on, and the IDs seen on each network, so far.
const netsOfId = new Map<string, Set<string>>();
const idsOnNet = new Map<string, Set<string>>();
// Each ID's component values at its latest visit (DIAG_CROWDED).
const lastValuesOf = new Map<string, Record<string, string>>();

/** Where a browser's original ID had been seen, when a visit on `network` did not retrieve it. */
function whereOriginalWasSeen(orig: string, network: string | null, netKind: string): string {
  const nets = netsOfId.get(orig) ?? new Set<string>();
  if (network !== null && nets.has(network)) return `seen on this network [${netKind}]`;
  const neighbours = [...(network === null ? [] : (idsOnNet.get(network) ?? []))].filter((id) => id !== orig);
  const linked = neighbours.some((id) => [...(netsOfId.get(id) ?? [])].some((n) => n !== network && nets.has(n)));
  if (linked) return `not on this network; another visitor of it was seen where the original was (household) [${netKind}]`;
  const block = network === null ? null : widerNetwork(network);
  const wide = block !== null && [...nets].some((n) => inWiderNetwork(n, block));
  return `not on this network${wide ? ', in its wider block' : ''} [${netKind}]`;
}
const probeOf = new Map<number, Probe>();
tokenless.forEach((i, k) => probeOf.set(i, probes[k]!));
records.forEach((r, i) => {
  const probe = probeOf.get(i);
  if (probe) {
    classify(i, probe);
    if (process.env.DIAG_EXACT) classifyRepeatedSignature(i, probe);
  }
  if (!r.serviceId) return;
  const rendered = renderVisit(seed, result.population.browsers[r.browser]!, visits[i]!);
  const features = extractFeatures(rendered.signals);
  const network = networkPrefix(rendered.ip);
  if (network !== null) {
    netsOfId.set(r.serviceId, (netsOfId.get(r.serviceId) ?? new Set<string>()).add(network));
    idsOnNet.set(network, (idsOnNet.get(network) ?? new Set<string>()).add(r.serviceId));
  }
  if (process.env.DIAG_CROWDED) lastValuesOf.set(r.serviceId, features.values);
  for (const key of [...features.blockingKeys, ...networkKeys(features, network)]) {
    const m = keyIndex.get(key) ?? new Map<string, number>();
    m.set(r.serviceId, r.t);
    keyIndex.set(key, m);
  }
});

/** The components two visits' values differ in, sorted, or "none". */
function differingComponents(a: Record<string, string>, b: Record<string, string>): string {
  const names = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((n) => a[n] !== b[n]);
  return names.length === 0 ? 'none' : names.sort().join(' ');
}

/** Why the original ID was not among the candidates: no shared key, or crowded out of each shared one. */
function retrievalMiss(probe: Probe, orig: string): string {
  const keys = [...probe.facts.visit.features.blockingKeys, ...networkKeys(probe.facts.visit.features, probe.facts.visit.network)];
  const shared: string[] = [];
  for (const key of keys) {
    const m = keyIndex.get(key);
    const at = m?.get(orig);
    if (!m || at === undefined || key.startsWith('p:')) continue;
    const newer = [...m.entries()].filter(([, t]) => t > at);
    const rank = newer.length;
    const own = newer.filter(([id]) => owner.get(id) === owner.get(orig)).length;
    shared.push(`${key.slice(0, key.indexOf(':'))}${rank >= CANDIDATES_PER_KEY ? (process.env.DIAG_CROWD_OWNERS ? `>8(own ${Math.min(own, 9)})` : '>8') : `#${rank}`}`);
  }
  return shared.length === 0 ? 'no shared key' : `crowded out (${shared.sort().join(' ')})`;
}

function classify(i: number, probe: Probe) {
  const r = records[i]!;
  const { facts, plan } = probe;
  if (process.env.DIAG_COHORT && !result.population.browsers[r.browser]!.cohorts.includes(process.env.DIAG_COHORT)) return;
  const distinguishable = limitId(r) === limitOriginal.get(r.browser);
  const condition = `${r.condition}${r.condition === 'first-visit' ? '' : distinguishable ? ` (${LIMIT}: distinguishable)` : ` (${LIMIT}: ambiguous)`}`;
  const answer = r.serviceId!;
  const orig = original.get(r.browser);
  const netKind = r.network;
  if (process.env.DIAG_LINKS && plan.kind === 'link') classifyLink(r, plan.visitor, facts);
  if (r.condition === 'first-visit') {
    add(condition, plan.kind === 'create' ? 'new ID (right)' : `linked to another browser's ID (${netKind})`);
    if (process.env.DIAG_FIRST && plan.kind === 'link') {
      const t = plan.visitor;
      const jars = (t.profile.jars ?? []).map((j) => `${j.p ? 'p' : ''}${Math.round((facts.visit.now - j.last) / 3.6e6)}h`).join(',');
      console.log(`FIRST ${netKind} -> ${plan.path} visits=${t.visitCount} twins=${t.profile.twins ?? 0} lastToken=${t.lastTokenAt === null ? '-' : Math.round((facts.visit.now - t.lastTokenAt) / 3.6e6) + 'h'} jars=${jars} p=${facts.crowding.p} n=${facts.crowding.n} r=${facts.crowding.r} f=${facts.crowding.f} l=${facts.crowding.l} x=${facts.crowding.x} | ${plan.confidence.comment}`);
    }
    return;
  }
  if (answer === orig) {
    add(condition, `RIGHT: original ID (${plan.kind === 'link' ? plan.path : plan.kind})`);
    return;
  }
  const c = facts.candidates.find((x) => x.visitorId === orig);
  if (plan.kind === 'link') {
    const who = owner.get(answer) === r.browser ? "own younger ID" : "another browser's ID";
    add(condition, `linked to ${who}${c ? '' : ' (original not retrieved)'} [${netKind}]`);
    if (process.env.DIAG_YOUNGER && c && who === 'own younger ID') younger(r, facts, c, facts.candidates.find((x) => x.visitorId === answer)!);
    return;
  }
  if (!c) {
    add(condition, `new: original not retrieved: ${retrievalMiss(probe, orig!).replace(/#\d+/g, '')} [${netKind}]`);
    add(`${condition}: where the original not retrieved was seen`, whereOriginalWasSeen(orig!, facts.visit.network, netKind));
    if (process.env.DIAG_CROWD_OWNERS) {
      const b = result.population.browsers[r.browser]!;
      const ids = new Set(records.slice(0, i).filter((x) => x.browser === r.browser && x.serviceId).map((x) => x.serviceId));
      // The cohorts that lose storage; `ids`: how many IDs the browser had before this visit.
      add(`${condition}: cohorts of the original not retrieved`, `${b.cohorts.filter((c) => /clear|itp|private/.test(c)).join(',') || 'none'} ids=${ids.size >= 10 ? '10+' : ids.size}`);
    }
    if (process.env.DIAG_CROWDED) add(`${condition}: components the original's last visit differed in, when not retrieved`, differingComponents(facts.visit.features.values, lastValuesOf.get(orig!) ?? {}));
    return;
  }
  const incompatible = incompatibility(facts.visit.features, c.profile);
  if (incompatible) {
    add(condition, `new: original ruled out by hard rule ${incompatible}`);
    return;
  }
  const s = scoreCandidate(facts.visit, c);
  if (s.vetoed) {
    add(condition, `new: original vetoed (${s.contradictions.join(',')})`);
    return;
  }
  if (s.score < MATCH.minScore) {
    add(condition, `new: original below minScore (${Math.round(s.score)})`);
    return;
  }
  const others = weighedCandidates(facts, c.visitorId);
  const ownRivals = others.filter((x) => owner.get(x.candidate.visitorId) === r.browser).length;
  const strangerRivals = others.length - ownRivals;
  const net = s.sameNetwork ? ((facts.crowding.p ?? 0) >= MATCH.sharedNetworkVisitors ? 'same shared net' : 'same net') : s.sameWideNetwork ? 'same wide net' : 'other net';
  if (process.env.DIAG_DETAIL && distinguishable && (process.env.DIAG_DETAIL === r.condition || s.sameNetwork)) detail(r, probe, s, c.visitorId);
  if (process.env.DIAG_SHORT && distinguishable) add(`${condition}: bits short of linking the original (DIAG_SHORT)`, `${bitsShort(facts, c.visitorId)} [${netKind}]`);
  const rivals = [ownRivals > 0 ? 'own younger ID' : '', strangerRivals > 0 ? 'strangers' : ''].filter(Boolean).join('+') || 'none';
  add(condition, `new: outweighed (rivals ${rivals}; ${net}) [${netKind}]`);
}

/**
 * DIAG_YOUNGER=1: a visit linked to its browser's own younger ID while the original was a
 * candidate too: whether the younger ID counts as the original's successor (one lineage,
 * answered with the earliest: matcher.ts successor()), the visits the original missed since the
 * younger appeared, and for each of the two its age, last visit, visits, jars (p: a private
 * window's; hours since first-last use) and score (N: seen on this network, H: on another
 * network of the household, W: in its wider block).
 */
function younger(r: (typeof records)[number], facts: IdentificationFacts, orig: Candidate, young: Candidate) {
  const hours = (t: number) => Math.round((facts.visit.now - t) / 3.6e6);
  const describe = (x: Candidate) => {
    const s = scoreCandidate(facts.visit, x);
    const jars = (x.profile.jars ?? []).map((j) => `${j.p ? 'p' : ''}${hours(j.first)}-${hours(j.last)}h`).join(',');
    const where = s.sameNetwork ? 'N' : s.householdNetwork ? 'H' : s.sameWideNetwork ? 'W' : '';
    return `age=${hours(x.firstSeenAt)}h last=${hours(x.lastSeenAt)}h visits=${x.visitCount} jars=${jars} score=${Math.round(s.score)}${where}`;
  };
  const missed = missedVisits(orig, facts.visit.now - young.firstSeenAt).toFixed(2);
  console.log(`YOUNGER ${r.condition} ${r.network} p=${facts.crowding.p} successor=${successor(young, orig, facts.visit.now)} missed=${missed} | ORIG ${describe(orig)} | YOUNG ${describe(young)}`);
}

/**
 * DIAG_LINKS=1: every link without a token, by whether its fingerprint was nobody else's (the
 * store's counts, as `rare` in decideWithoutToken, without its other conditions), how long ago
 * the linked ID's storage was last in use, the visit's condition and network, and whether the
 * ID was the browser's original (a first visit's link is always another browser's); the
 * nobody-else's ones again by the linked ID's age.
 */
function classifyLink(r: (typeof records)[number], linked: Candidate, facts: IdentificationFacts) {
  const hoursAgo = (t: number) => (facts.visit.now - t) / 3.6e6;
  const bucket = (h: number, edges: readonly number[], names: readonly string[]) => names[edges.findIndex((e) => h < e)] ?? names[names.length - 1]!;
  const rare = signatureCrowding(facts.crowding) === 1 && (facts.crowding.x ?? 0) <= 1 ? 'nobody else\'s' : 'shared';
  const used = bucket(hoursAgo(lastStorageUse(linked)), [1, 6, 24, 72], ['used <1h ago', 'used 1-6h ago', 'used 6-24h ago', 'used 1-3d ago', 'used >3d ago']);
  const first = r.condition === 'first-visit';
  const who = first ? "another browser's" : linked.visitorId === original.get(r.browser) ? 'original' : owner.get(linked.visitorId) === r.browser ? 'own younger ID' : "another browser's";
  add('links without a token (DIAG_LINKS)', `${rare}; storage ${used}; ${first ? 'first visit' : 'returning'} [${r.network}] -> ${who}`);
  if (rare !== 'shared') {
    const age = bucket(hoursAgo(linked.firstSeenAt), [6, 24, 72], ['first seen <6h ago', 'first seen 6-24h ago', 'first seen 1-3d ago', 'first seen >3d ago']);
    add("links without a token, fingerprint nobody else's, by the linked ID's age (DIAG_LINKS)", `${age}; ${first ? 'first visit' : 'returning'} [${r.network}] -> ${who}`);
  }
}

/**
 * DIAG_EXACT=1: a visit without a token whose complete signature (its `x:` key) one earlier
 * visitor alone had shown, by whose browser that visitor was (the visit's own, or another: mostly
 * a new browser's first visit), where it had been seen, how long ago its storage was last in use,
 * and whether the service answered with it: how much a repeated complete signature says.
 */
function classifyRepeatedSignature(i: number, probe: Probe) {
  const r = records[i]!;
  const { facts } = probe;
  const holders = [...(keyIndex.get(`x:${facts.visit.features.exactHash}`)?.keys() ?? [])];
  if (holders.length !== 1) return;
  const holder = holders[0]!;
  const whose = owner.get(holder) === r.browser ? 'own browser' : "another browser's";
  const answered = r.serviceId === holder ? 'answered with it' : 'not answered with it';
  const mode = facts.visit.features.privateMode ? 'private window' : 'normal window';
  const condition = `complete signature one earlier visitor showed (DIAG_EXACT), ${mode}`;
  const c = facts.candidates.find((x) => x.visitorId === holder);
  if (!c) {
    add(condition, `${whose}; not retrieved; ${answered}`);
    return;
  }
  const s = scoreCandidate(facts.visit, c);
  const seen = s.sameNetwork ? 'seen on this network' : s.sameWideNetwork ? 'seen in its ISP block' : 'seen elsewhere';
  const days = (facts.visit.now - lastStorageUse(c)) / (24 * 3.6e6);
  const used = days < 1 ? 'storage used < 1 day ago' : days < 7 ? 'storage used 1-7 days ago' : 'storage used >= 7 days ago';
  add(condition, `${whose}; ${seen}; ${used}; ${answered}`);
}

// Token visits of a young ID weighed for relinking: when the ID is the browser's own but not
// its original, why the storage was not moved back (relink.ts explainRelink), by network.
const visitAt = new Map<number, number>();
records.forEach((r, i) => visitAt.set(r.t, i));
for (const { facts, plan } of relinkProbes) {
  const r = records[visitAt.get(facts.visit.now)!]!;
  const young = facts.token!.visitor;
  const orig = original.get(r.browser);
  if (young.visitorId === orig && plan.kind === 'relink') {
    // The storage kept its first ID, which relinking moved: to another browser's ID, always.
    add('relinking (the browser\'s original ID, moved)', `relinked to another browser's ID [${r.network}]`);
    if (process.env.DIAG_RELINK_WRONG) {
      const target = plan.visitor;
      const line = weighedCandidates(facts, young.visitorId).map((x) => { const c = x.candidate; return `${c.visitorId === target.visitorId ? 'TARGET' : owner.get(c.visitorId) === owner.get(target.visitorId) ? 'tgt-own' : 'str'}:${Math.round(x.score)}${x.sameNetwork ? 'N' : ''}${c.profile.contested ? 'c' : ''} v${c.visitCount} sil${silenceBits(c, young, facts.visit.now).toFixed(1)} first${Math.round((facts.visit.now - c.firstSeenAt) / 3.6e6)}h last${Math.round((facts.visit.now - c.lastSeenAt) / 3.6e6)}h`; }).join(' ');
      const targetBrowser = owner.get(target.visitorId)!;
      const targetLater = records.filter((x) => x.browser === targetBrowser && x.t > facts.visit.now).length;
      console.log(`WRONG ${r.network} young v${young.visitCount} age${Math.round((facts.visit.now - young.firstSeenAt) / 3.6e6)}h p=${facts.crowding.p} n=${facts.crowding.n} target's browser visits later: ${targetLater} | ${line}`);
    }
    continue;
  }
  if (young.visitorId === orig || owner.get(young.visitorId) !== r.browser) continue;
  const retrieved = facts.candidates.some((c) => c.visitorId === orig) ? 'original retrieved' : 'original not retrieved';
  if (retrieved === 'original not retrieved') add('relinking: where the original not retrieved was seen', whereOriginalWasSeen(orig!, facts.visit.network, r.network));
  if (plan.kind === 'relink') {
    add('relinking (young ID of the browser, not its original)', `relinked to ${owner.get(plan.visitor.visitorId) === r.browser ? (plan.visitor.visitorId === orig ? 'the original' : 'another own ID') : "another browser's ID"} [${r.network}]`);
    continue;
  }
  const verdict = explainRelink({ visit: facts.visit, young, jar: facts.token!.jar, candidates: facts.candidates, crowding: facts.crowding });
  if (process.env.DIAG_RELINK && 'kept' in verdict && verdict.kept === 'no earlier ID singled out' && retrieved === 'original retrieved' && r.network === process.env.DIAG_RELINK) {
    const line = weighedCandidates(facts, young.visitorId).map((x) => { const c = x.candidate; return `${c.visitorId === orig ? 'ORIG' : owner.get(c.visitorId) === r.browser ? 'own' : 'str'}:${Math.round(x.score)}${x.sameNetwork ? 'N' : x.sameWideNetwork ? 'W' : ''}${c.profile.contested ? 'c' : ''} v${c.visitCount} sil${silenceBits(c, young, facts.visit.now).toFixed(1)} last${Math.round((facts.visit.now - c.lastSeenAt) / 3.6e6)}h`; }).join(' ');
    console.log(`RELINK ${r.network} young v${young.visitCount} age${Math.round((facts.visit.now - young.firstSeenAt) / 3.6e6)}h p=${facts.crowding.p} n=${facts.crowding.n} f=${facts.crowding.f} x=${facts.crowding.x} | ${line}`);
  }
  add('relinking (young ID of the browser, not its original)', `kept: ${'kept' in verdict ? verdict.kept : 'relinked'} (${retrieved}) [${r.network}]`);
}

for (const [condition, m] of counts) {
  const total = [...m.values()].reduce((a, b) => a + b, 0);
  console.log(`\n## ${condition} (${total} visits)`);
  for (const [what, n] of [...m].sort((a, b) => b[1] - a[1])) console.log(`${String(n).padStart(6)}  ${((100 * n) / total).toFixed(1).padStart(5)}%  ${what}`);
}

/**
 * DIAG_SHORT=1: how much more evidence for the original (log2, added to its weight as relink.ts
 * adds an earlier ID's silence) the decision, which created a new ID, would have needed to answer
 * with it (a clear margin over every alternative: a browser never seen, or another candidate), in
 * buckets, with how many visitors share the visit's drift-robust keys (signatureCrowding).
 */
function bitsShort(facts: IdentificationFacts, orig: string): string {
  const answers = (bits: number) => {
    const d = decideWithoutToken(facts.visit, facts.candidates, facts.crowding, { extraBits: (x) => (x.visitorId === orig ? bits : 0) });
    return d.kind === 'link' ? d.visitorId : null;
  };
  const crowd = signatureCrowding(facts.crowding);
  const lookalikes = `look-alikes ${crowd <= 1 ? '1' : crowd < 20 ? '2-19' : '20+'}`;
  for (const bits of [0.5, 1, 2, 3, 4, 6, 8, 12]) if (answers(bits) === orig) return `<= ${bits} bits; ${lookalikes}`;
  return `> 12 bits; ${lookalikes}`;
}

/** The candidates a tokenless decision weighs (compatible, not vetoed, above the minimum score), scored; `except` left out. */
function weighedCandidates(facts: IdentificationFacts, except?: string): ReturnType<typeof scoreCandidate>[] {
  return facts.candidates
    .filter((x) => x.visitorId !== except && incompatibility(facts.visit.features, x.profile) === null)
    .map((x) => scoreCandidate(facts.visit, x))
    .filter((x) => !x.vetoed && x.score >= MATCH.minScore);
}

function detail(r: (typeof records)[number], probe: Probe, s: ReturnType<typeof scoreCandidate>, orig: string) {
  const { facts } = probe;
  const all = weighedCandidates(facts);
  const line = all.map((x) => `${x.candidate.visitorId === orig ? 'ORIG' : owner.get(x.candidate.visitorId) === r.browser ? 'own' : 'str'}:${Math.round(x.score)}${x.sameNetwork ? 'N' : x.sameWideNetwork ? 'W' : ''}${facts.visit.network !== null && hopsThrough(facts.visit.network, x.candidate.profile.nets, MATCH.poolNetworks) ? 'P' : ''}${x.candidate.profile.contested ? 'c' : ''}${x.candidate.profile.twins ? 't' : ''} v${(x.candidate as { visitCount?: number }).visitCount}`).join(' ');
  console.log(`DETAIL ${r.condition} ${r.network} p=${facts.crowding.p} n=${facts.crowding.n} r=${facts.crowding.r} f=${facts.crowding.f} l=${facts.crowding.l} x=${facts.crowding.x} h=${facts.crowding.h} | ${line} | ${probe.plan.confidence.comment ?? ''}`);
  void s;
}

if (process.env.DIAG_TRACE) {
  const wanted = result.population.browsers.filter((b) => b.cohorts.includes(process.env.DIAG_TRACE!)).slice(0, Number(process.env.DIAG_TRACE_N ?? 3));
  for (const b of wanted) {
    const idsSeen: string[] = [];
    console.log(`TRACE browser ${b.index} ${b.cohorts.join(',')}`);
    records.forEach((r, i) => {
      if (r.browser !== b.index) return;
      const id = r.serviceId ?? '-';
      if (!idsSeen.includes(id)) idsSeen.push(id);
      const probe = probeOf.get(i);
      const c = probe?.facts.crowding;
      const at = new Date(r.t).toISOString().slice(5, 16);
      console.log(`  ${at} ${visits[i]!.jar.padEnd(8)} ${r.condition.padEnd(12)} ${r.network.padEnd(8)} id#${idsSeen.indexOf(id)} ${probe ? `p=${c?.p} n=${c?.n} x=${c?.x} cands=${probe.facts.candidates.length} | ${probe.plan.confidence.comment ?? ''}` : ''}`);
    });
  }
}
