/**
 * `npm run bench:accuracy [-- --browsers N --days D --seed S --concurrency C --quick --match name=value]`
 * Simulates the population, runs it through the real service, prints the report and writes
 * bench/.out/accuracy.json. Default: 20,000 browsers over 90 simulated days; --quick: 2,000
 * browsers over 30 days. --match (repeatable) changes a matcher tunable for the run
 * (match-overrides.ts); the report names it.
 */
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { MATCH } from '../../src/service/identification/matcher.js';
import { writeBenchOutput } from '../bench-output.js';
import { applyMatchOverrides } from './match-overrides.js';
import { buildReport, reportMarkdown } from './report.js';
import { runSimulation } from './simulate.js';

const { values } = parseArgs({
  options: {
    browsers: { type: 'string' },
    days: { type: 'string' },
    seed: { type: 'string', default: 'tessera-1' },
    concurrency: { type: 'string', default: '16' },
    quick: { type: 'boolean', default: false },
    match: { type: 'string', multiple: true, default: [] },
  },
});
const overrides = applyMatchOverrides(MATCH, values.match);

const browsers = Number(values.browsers ?? (values.quick ? 2000 : 20000));
const days = Number(values.days ?? (values.quick ? 30 : 90));
const concurrency = Number(values.concurrency);
const seed = values.seed;
for (const [name, v] of Object.entries({ browsers, days, concurrency })) {
  if (!Number.isInteger(v) || v <= 0) throw new Error(`--${name} must be a positive integer`);
}

/** Which service code is measured: the commit, and whether src/ had uncommitted changes. */
function codeVersion(): string {
  const git = (args: string[]) => spawnSync('git', args, { encoding: 'utf8' }).stdout?.trim() ?? '';
  const commit = git(['rev-parse', '--short', 'HEAD']);
  if (!commit) return 'unknown';
  return git(['status', '--porcelain', '--untracked-files=no', 'src']) ? `commit ${commit} with uncommitted changes in src/` : `commit ${commit}`;
}
const code = codeVersion() + (overrides.length ? ` with MATCH ${overrides.join(', ')}` : '');

console.log(`Accuracy benchmark: ${browsers} browsers, ${days} days, seed ${seed}, concurrency ${concurrency}, ${code}`);
const result = await runSimulation({
  seed, browsers, days, concurrency,
  onProgress: (done, total) => process.stderr.write(`  ${done}/${total} visits\r`),
});
process.stderr.write('\n');
const report = buildReport(result, { seed, days, concurrency, code });
const markdown = reportMarkdown(report);
console.log(markdown);
const file = writeBenchOutput({ name: 'accuracy', title: 'Identification accuracy', markdown, figures: report });
console.log(`\nwrote ${file}`);
