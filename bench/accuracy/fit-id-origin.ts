/**
 * `npx tsx bench/accuracy/fit-id-origin.ts [-- --seed calibration-1 --browsers 20000 --days 90 --visitor-cookie]`
 * Fits the weights of the service's ID-origin model (src/service/identification/id-origin.ts)
 * by maximum likelihood on a simulated population run through the real service: every visit
 * answered with an ID that was created among look-alikes is one row, its outcome whether the
 * answer was right (metrics.ts, isCorrect), its inputs the ID's posterior at creation (read
 * from the service's database after the run) and the visits the ID had before. Prints the
 * weights to paste into ID_ORIGIN_MODEL (with --visitor-cookie: the service and the browsers keep
 * the service's cookie, simulate.ts, and the weights go into ID_ORIGIN_MODEL_WITH_COOKIE). Fit on
 * a seed other than the report's (tessera-1).
 *
 * An ID that was relinked (identification/relink.ts) has no row any more; its posterior at
 * creation is read back from the answer that created it (the model's own output, inverted).
 */
import { parseArgs } from 'node:util';
import { ID_ORIGIN_MODEL, idOriginFeatures, idOriginModel } from '../../src/service/identification/id-origin.js';
import { parseProfile } from '../../src/service/identification/profile.js';
import { fitLogistic } from './logistic.js';
import { indexStream, isCorrect, type VisitOutcome } from './metrics.js';
import { runSimulation } from './simulate.js';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: 'calibration-1' },
    browsers: { type: 'string', default: '20000' },
    days: { type: 'string', default: '90' },
    concurrency: { type: 'string', default: '16' },
    'visitor-cookie': { type: 'boolean', default: false },
  },
});
if (values.seed === 'tessera-1') console.warn('warning: tessera-1 is the seed the accuracy report is judged on; fit on another one');

/** The model the service answered with (with the cookie, every request is same-origin: the cookie's). */
const model = idOriginModel(values['visitor-cookie']);
/** Posterior at creation of every visitor created among look-alikes. */
const births = new Map<string, number>();
/** IDs relinked to an earlier one (their rows are gone). */
const absorbed = new Set<string>();
console.log(`Fitting the ID-origin model: ${values.browsers} browsers, ${values.days} days, seed ${values.seed}`);
const result = await runSimulation({
  seed: values.seed,
  browsers: Number(values.browsers),
  days: Number(values.days),
  concurrency: Number(values.concurrency),
  visitorCookie: values['visitor-cookie'],
  onProgress: (done, total) => process.stderr.write(`  ${done}/${total} visits\r`),
  inspect: async (db) => {
    for (const row of await db.selectFrom('visitors').select(['visitor_id', 'profile']).execute()) {
      const profile = parseProfile(row.profile);
      if (profile.contested && profile.birth !== undefined) births.set(row.visitor_id, profile.birth);
    }
    for (const row of await db.selectFrom('visitor_links').select('absorbed_id').execute()) absorbed.add(row.absorbed_id);
  },
});

/**
 * The posterior at creation from the score of the answer that created the ID: that answer's
 * score is the model at (birth, 0 earlier visits, creating), rounded to 3 decimals.
 */
function birthFromCreatingScore(score: number): number {
  const clamp = (p: number) => Math.min(1 - 1e-3, Math.max(1e-3, p));
  const logit = (p: number) => Math.log(clamp(p) / (1 - clamp(p)));
  return 1 / (1 + Math.exp(-(logit(score) - model.intercept - model.creating) / model.birthLogit));
}
for (const r of result.records) {
  if (r.serviceId !== null && absorbed.has(r.serviceId) && !births.has(r.serviceId) && r.score !== undefined) births.set(r.serviceId, birthFromCreatingScore(r.score));
}
process.stderr.write('\n');

const outcomes: VisitOutcome[] = result.records
  .filter((r) => r.serviceId !== null)
  .map((r) => ({ browser: r.browser, t: r.t, id: r.serviceId, condition: r.condition }));
const index = indexStream(outcomes);
const names = Object.keys(ID_ORIGIN_MODEL) as (keyof typeof ID_ORIGIN_MODEL)[];
const rows: number[][] = [];
const outcomesOfRows: boolean[] = [];
const visitsOf = new Map<string, number>();
// Records are in time order: an ID's earlier visits are the ones before.
for (const o of outcomes) {
  const id = o.id as string;
  const earlier = visitsOf.get(id) ?? 0;
  visitsOf.set(id, earlier + 1);
  const birth = births.get(id);
  if (birth === undefined) continue;
  const features = idOriginFeatures(birth, earlier, earlier === 0);
  rows.push(names.map((name) => features[name]));
  outcomesOfRows.push(isCorrect(o, index));
}
const weights = fitLogistic(rows, outcomesOfRows);
console.log(`${rows.length} answers with an ID created among look-alikes (${births.size} such IDs), ${(100 * outcomesOfRows.filter(Boolean).length / rows.length).toFixed(1)}% right`);
console.log(`${values['visitor-cookie'] ? 'ID_ORIGIN_MODEL_WITH_COOKIE' : 'ID_ORIGIN_MODEL'} weights:`);
names.forEach((name, i) => console.log(`  ${name}: ${weights[i]!.toFixed(3)},   (now ${model[name]})`));
