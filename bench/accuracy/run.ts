/**
 * `npm run bench:accuracy [-- --browsers N --days D --seed S --concurrency C --quick --match name=value --visitor-cookie]`
 * Simulates the population, runs it through the real service, prints the report and writes
 * bench/.out/accuracy.json (accuracy-visitor-cookie.json with --visitor-cookie). Default: 20,000 browsers over 90 simulated days; --quick: 2,000
 * browsers over 30 days. --match (repeatable) changes a matcher tunable for the run
 * (match-overrides.ts); the report names it. The holdout seed runs in a child process of its
 * own, beside the main seed, on a machine with more than one core (on two cores a run took
 * about three quarters of the time: each simulation also keeps part of a second core busy).
 * --sequential runs them one after the other in this process. --visitor-cookie runs the service
 * with its cookie, as deployed on the site's own origin (simulate.ts).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { MATCH } from '../../src/service/identification/matcher.js';
import { writeBenchOutput } from '../bench-output.js';
import { applyMatchOverrides } from './match-overrides.js';
import { buildReport, reportMarkdown, seedComparisonMarkdown, type AccuracyReport } from './report.js';
import { runSimulation } from './simulate.js';

const { values } = parseArgs({
  options: {
    browsers: { type: 'string' },
    days: { type: 'string' },
    seed: { type: 'string', default: 'tessera-1' },
    // A second population nobody tunes on, reported beside the first ('' to skip it).
    'holdout-seed': { type: 'string', default: 'holdout-2' },
    concurrency: { type: 'string', default: '16' },
    quick: { type: 'boolean', default: false },
    match: { type: 'string', multiple: true, default: [] },
    sequential: { type: 'boolean', default: false },
    'visitor-cookie': { type: 'boolean', default: false },
    // Internal: the child that runs the holdout seed writes its report here instead of printing it.
    'report-json': { type: 'string' },
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
const visitorCookie = values['visitor-cookie'];
const code = codeVersion() + (overrides.length ? ` with MATCH ${overrides.join(', ')}` : '') + (visitorCookie ? ', with --visitor-cookie (the agent posting to the site\'s own origin)' : '');

const holdoutSeed = values['holdout-seed'];

async function runSeed(runSeed: string): Promise<{ report: AccuracyReport; markdown: string }> {
  console.log(`Accuracy benchmark: ${browsers} browsers, ${days} days, seed ${runSeed}, concurrency ${concurrency}, ${code}`);
  const result = await runSimulation({
    seed: runSeed, browsers, days, concurrency, visitorCookie,
    onProgress: (done, total) => process.stderr.write(`  ${done}/${total} visits\r`),
  });
  process.stderr.write('\n');
  const report = buildReport(result, { seed: runSeed, days, concurrency, code });
  return { report, markdown: reportMarkdown(report) };
}

/** `childSeed` run by a child process (this script again, on another core): its report. */
function runSeedInChild(childSeed: string): Promise<AccuracyReport> {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-accuracy-report-'));
  const file = join(dir, 'report.json');
  const args = [
    ...process.execArgv,
    process.argv[1]!,
    ...['--seed', childSeed, '--holdout-seed', '', '--browsers', String(browsers), '--days', String(days), '--concurrency', String(concurrency)],
    ...values.match.flatMap((m) => ['--match', m]),
    ...(visitorCookie ? ['--visitor-cookie'] : []),
    ...['--report-json', file],
  ];
  return new Promise<AccuracyReport>((resolve, reject) => {
    // Its progress would garble this process's; only the end of its error output is kept.
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    // Not left running on its own when this process ends first (the first seed's run failed).
    const stopChild = () => child.kill();
    process.on('exit', stopChild);
    let errorTail = '';
    child.stderr.on('data', (chunk: Buffer) => {
      errorTail = (errorTail + chunk.toString()).slice(-4000);
    });
    child.on('error', reject);
    child.on('exit', (exitCode) => {
      process.off('exit', stopChild);
      try {
        if (exitCode !== 0) throw new Error(`the run of seed ${childSeed} failed (exit code ${exitCode}):\n${errorTail}`);
        resolve(JSON.parse(readFileSync(file, 'utf8')) as AccuracyReport);
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

if (values['report-json']) {
  writeFileSync(values['report-json'], JSON.stringify((await runSeed(seed)).report));
  process.exit(0);
}

const withHoldout = Boolean(holdoutSeed) && holdoutSeed !== seed;
const holdoutInChild = withHoldout && !values.sequential && availableParallelism() > 1 ? runSeedInChild(holdoutSeed) : null;
// Handled when awaited; until then a failure must not end the process as unhandled.
holdoutInChild?.catch(() => undefined);
const main = await runSeed(seed);
console.log(main.markdown);
const holdout = !withHoldout ? null : holdoutInChild ? { report: await holdoutInChild } : await runSeed(holdoutSeed);
let markdown = main.markdown;
if (holdout) {
  const comparison = `The same population model on a second seed (\`${holdoutSeed}\`), never used to tune the matcher:\n\n${seedComparisonMarkdown([main.report, holdout.report])}`;
  console.log(`\n${comparison}`);
  markdown += `\n\n${comparison}`;
}
const file = writeBenchOutput({
  ...(visitorCookie
    ? { name: 'accuracy-visitor-cookie', title: 'Identification accuracy with --visitor-cookie' }
    : { name: 'accuracy', title: 'Identification accuracy' }),
  markdown,
  figures: { ...main.report, ...(holdout ? { holdout: holdout.report } : {}) },
});
console.log(`\nwrote ${file}`);
