/**
 * `npm run bench`: runs every benchmark of the project, each as a child process, and writes
 * BENCHMARKS.md with their figures, the machine they ran on and the peers side by side.
 * Convention (bench/README.md): a benchmark prints its table and writes
 * bench/.out/<name>.json ({ name, title, markdown, figures, generatedAt }) via
 * bench/bench-output.ts. A benchmark that is missing, fails or writes no output is reported
 * as such in BENCHMARKS.md, never left out.
 *
 * Options: --only size,accuracy   run a subset; the others are taken from their existing
 *                                  bench/.out/<name>.json, labelled with the time of that
 *                                  earlier run, or listed as not run
 *          --accuracy-args "..."  arguments for the accuracy benchmark (e.g. "--quick")
 *          --out FILE             where to write the report (default BENCHMARKS.md)
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BENCH_OUT_DIR } from './bench-output.js';
import { earlierRunStatus, earlierSections, reportMinute, type EarlierSection } from './earlier-report.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

interface BenchSpec {
  name: string;
  title: string;
  script: string;
  args: string[];
  owner: string;
  timeoutMinutes: number;
}

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    'accuracy-args': { type: 'string', default: '' },
    out: { type: 'string', default: 'BENCHMARKS.md' },
  },
});

const BENCHES: BenchSpec[] = [
  { name: 'size', title: 'Agent bundle size', script: 'bench/size.ts', args: [], owner: 'agent', timeoutMinutes: 10 },
  { name: 'agent-speed', title: 'Agent speed', script: 'bench/agent-speed.ts', args: [], owner: 'agent', timeoutMinutes: 20 },
  { name: 'service-throughput', title: 'Service throughput', script: 'bench/service-throughput.ts', args: [], owner: 'service', timeoutMinutes: 20 },
  { name: 'server-api-latency', title: 'Server API latency', script: 'bench/server-api-latency.ts', args: [], owner: 'Server API', timeoutMinutes: 20 },
  { name: 'features-overhead', title: 'Features overhead', script: 'bench/features-overhead.ts', args: [], owner: 'service', timeoutMinutes: 20 },
  { name: 'postgres-scaling', title: 'Service processes on one PostgreSQL', script: 'bench/postgres-scaling.ts', args: [], owner: 'service', timeoutMinutes: 20 },
  { name: 'accuracy', title: 'Identification accuracy', script: 'bench/accuracy/run.ts', args: (values['accuracy-args'] ?? '').split(/\s+/).filter(Boolean), owner: 'accuracy', timeoutMinutes: 180 },
  // The same population with the service's cookie (the agent posting to the site's own origin).
  {
    name: 'accuracy-visitor-cookie',
    title: 'Identification accuracy with --visitor-cookie',
    script: 'bench/accuracy/run.ts',
    args: ['--visitor-cookie', ...(values['accuracy-args'] ?? '').split(/\s+/).filter(Boolean)],
    owner: 'accuracy',
    timeoutMinutes: 180,
  },
];

type Outcome =
  | { status: 'ok'; seconds: number; title: string; markdown: string }
  | { status: 'earlier'; generatedAt: string; title: string; markdown: string }
  | { status: 'missing' | 'not-run' }
  | { status: 'failed'; seconds: number; reason: string; tail: string };

function runChild(spec: BenchSpec): Promise<{ code: number | null; tail: string; seconds: number; timedOut: boolean }> {
  const started = Date.now();
  return new Promise((resolve) => {
    // --no-memory-reducer: see bench/README.md ("The benchmark process's own garbage").
    const child = spawn(process.execPath, ['--no-memory-reducer', '--import', 'tsx', '--import', './bench/compiled-code.mjs', spec.script, ...spec.args], {
      cwd: ROOT,
      env: { ...process.env, BENCH_OUT_DIR },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let tail = '';
    const keep = (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-4000);
    };
    child.stdout.on('data', (c: Buffer) => { process.stdout.write(c); keep(c); });
    child.stderr.on('data', (c: Buffer) => { process.stderr.write(c); keep(c); });
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGTERM'); }, spec.timeoutMinutes * 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, tail, seconds: (Date.now() - started) / 1000, timedOut });
    });
  });
}

async function runBench(spec: BenchSpec): Promise<Outcome> {
  if (!existsSync(join(ROOT, spec.script))) return { status: 'missing' };
  console.log(`\n=== ${spec.title} (${spec.script}) ===`);
  const startedAt = Date.now();
  const { code, tail, seconds, timedOut } = await runChild(spec);
  const outFile = join(BENCH_OUT_DIR, `${spec.name}.json`);
  const lastLines = tail.split('\n').slice(-15).join('\n');
  if (timedOut) return { status: 'failed', seconds, reason: `timed out after ${spec.timeoutMinutes} min`, tail: lastLines };
  if (code !== 0) return { status: 'failed', seconds, reason: `exited with code ${code}`, tail: lastLines };
  if (!existsSync(outFile) || statSync(outFile).mtimeMs < startedAt) {
    return { status: 'failed', seconds, reason: `exited 0 but wrote no ${relative(ROOT, outFile)}`, tail: lastLines };
  }
  try {
    const out = JSON.parse(readFileSync(outFile, 'utf8')) as { title?: string; markdown?: string };
    if (typeof out.markdown !== 'string') throw new Error('no "markdown" field');
    return { status: 'ok', seconds, title: out.title ?? spec.title, markdown: out.markdown };
  } catch (err) {
    return { status: 'failed', seconds, reason: `unreadable ${relative(ROOT, outFile)}: ${(err as Error).message}`, tail: lastLines };
  }
}

/** The report as it was before this run: its sections stand in for benchmarks without output here. */
const reportPath = resolve(ROOT, values.out);
const publishedSections = existsSync(reportPath) ? earlierSections(readFileSync(reportPath, 'utf8')) : new Map<string, EarlierSection>();

/** A previous run's output of a benchmark not selected with --only: bench/.out, else the published report. */
function earlierOutput(spec: BenchSpec): Outcome {
  const outFile = join(BENCH_OUT_DIR, `${spec.name}.json`);
  if (!existsSync(outFile)) {
    const published = publishedSections.get(spec.title);
    return published ? { status: 'earlier', ...published } : { status: 'not-run' };
  }
  try {
    const out = JSON.parse(readFileSync(outFile, 'utf8')) as { title?: string; markdown?: string; generatedAt?: string };
    if (typeof out.markdown !== 'string') return { status: 'not-run' };
    return { status: 'earlier', generatedAt: out.generatedAt ?? statSync(outFile).mtime.toISOString(), title: out.title ?? spec.title, markdown: out.markdown };
  } catch {
    return { status: 'not-run' };
  }
}

function gitDescription(): string {
  const git = (args: string[]) => spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' }).stdout?.trim() ?? '';
  const commit = git(['rev-parse', '--short', 'HEAD']) || 'unknown';
  const dirty = git(['status', '--porcelain', '--untracked-files=no', 'src']) !== '';
  return `commit ${commit}${dirty ? ' with uncommitted changes in src/' : ''}`;
}

function machineSection(loadAtStart: number[]): string {
  const cpus = os.cpus();
  return [
    '| CPU | Cores | Memory | Node | OS | Load average at start (1/5/15 min) |',
    '| --- | ---: | ---: | --- | --- | --- |',
    `| ${cpus[0]?.model.trim() ?? 'unknown'} | ${cpus.length} | ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB | ${process.version} | ${os.type()} ${os.release()} ${os.arch()} | ${loadAtStart.map((l) => l.toFixed(2)).join(' / ')} |`,
  ].join('\n');
}

const only = values.only ? new Set(values.only.split(',').map((s) => s.trim())) : null;
const started = new Date();
// Read before the benchmarks run (and build): the code measured, not the tree at the end.
const measuredCode = gitDescription();
const load = os.loadavg();
const results: { spec: BenchSpec; outcome: Outcome }[] = [];
for (const spec of BENCHES) {
  const outcome: Outcome = only && !only.has(spec.name) ? earlierOutput(spec) : await runBench(spec);
  results.push({ spec, outcome });
}

const statusText = (o: Outcome): string => {
  switch (o.status) {
    case 'ok': return `ok (${o.seconds.toFixed(0)} s)`;
    case 'earlier': return earlierRunStatus(o.generatedAt);
    case 'missing': return '**missing** (script not in the repository)';
    case 'not-run': return 'not run (excluded with --only)';
    case 'failed': return `**failed**: ${o.reason} (${o.seconds.toFixed(0)} s)`;
  }
};

const md: string[] = [
  '# Benchmarks',
  '',
  `Generated by \`npm run bench\` (bench/run-all.ts) on ${reportMinute(started.toISOString())} UTC at ${measuredCode}. Figures were measured on this machine; peers are measured in the same run as our figures. A benchmark marked "from an earlier run" below was not re-run this time and shows its last output. How to read and reproduce each one: bench/README.md.`,
  '',
  '## Machine',
  '',
  machineSection(load),
  '',
  'The machine is shared (other processes may run during the benchmarks); the load average above shows how busy it was.',
  '',
  '## Summary',
  '',
  '| Benchmark | Script | Status |',
  '| --- | --- | --- |',
  ...results.map(({ spec, outcome }) => `| ${spec.title} | \`${spec.script}${spec.args.length ? ` ${spec.args.join(' ')}` : ''}\` | ${statusText(outcome)} |`),
  '',
];
for (const { spec, outcome } of results) {
  md.push(`## ${outcome.status === 'ok' || outcome.status === 'earlier' ? outcome.title : spec.title}`, '');
  if (outcome.status === 'ok') md.push(outcome.markdown.trim(), '');
  else if (outcome.status === 'earlier') md.push(`*${statusText(outcome)}.*`, '', outcome.markdown.trim(), '');
  else if (outcome.status === 'failed') md.push(`Failed: ${outcome.reason}. Last output:`, '', '```', outcome.tail.trim(), '```', '');
  else md.push(statusText(outcome), '');
}
writeFileSync(reportPath, md.join('\n'));
console.log(`\nwrote ${values.out}`);
process.exitCode = results.some((r) => r.outcome.status === 'failed') ? 1 : 0;
