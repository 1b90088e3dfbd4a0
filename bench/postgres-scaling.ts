/**
 * How ingestion throughput grows from one to two service processes on one PostgreSQL: the
 * same returning-visitor load (bench/service-throughput.ts's population, tokens attached) sent
 * to 1 process, then split evenly between 2 processes on different ports, alternating the two
 * set-ups for BENCH_ROUNDS rounds so that drift in the machine's load hits both.
 *
 *   npx tsx --import ./bench/compiled-code.mjs bench/postgres-scaling.ts
 *   BENCH_EVENTS=20000 BENCH_VISITORS=5000 BENCH_DURATION=10 BENCH_ROUNDS=3 npx tsx --import ./bench/compiled-code.mjs bench/postgres-scaling.ts
 *
 * Each service is the compiled service in a child process of its own (bench/service-process.ts,
 * default pool of 10 connections); the load comes from one more child process running one
 * autocannon instance per service (BENCH_CONNECTIONS in all, split evenly). Next to the rates,
 * the CPU time per request of the service processes (together), of the PostgreSQL backends of
 * the benchmark's database and of the load generator, read from /proc: on a shared machine the
 * rates move with everyone else's load, CPU per request much less. Everything (PostgreSQL
 * included) runs on this machine, so the processes compete for its cores.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Kysely } from 'kysely';
import { VERSION as AGENT_VERSION } from '../src/agent/version.js';
import { createService } from '../src/service/index.js';
import { findApiKeyByToken, setApiKeyRateLimit } from '../src/service/store/api-keys.js';
import { kyselyOf, openStore } from '../src/service/store/index.js';
import { createTestDatabase } from '../test/helpers/test-service.js';
import { endProcess, readyUrl } from '../test/webhooks/child-service.js';
import { writeBenchOutput } from './bench-output.js';
import { AUTOCANNON_REQUESTS_SOURCE, browserRequests, sendFirstVisits, TOKEN_KEEPING_SOURCE, type BrowserRequest } from './browser-requests.js';
import { backendCpuUsed, postgresBackendCpu, processCpuMs } from './process-cpu.js';
import { MEMORY_SAMPLE_MS, mib, peakOwnMemory } from './process-memory.js';
import { SEED_NOW, seedEvents, seedVisitors, settleAfterSeeding } from './seed-events.js';

// As many as the service benchmark stores (since 2026-12-02; 20,000 events of 5,000 visitors
// before): the service processes' memory is reported after a load on a database of that size.
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const VISITORS = Number(process.env.BENCH_VISITORS ?? 100_000);
const BROWSERS = Number(process.env.BENCH_BROWSERS ?? 3000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const PROCESSES = (process.env.BENCH_PROCESSES ?? '1,2').split(',').map(Number);
const WARM_UP_S = 2;

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SERVICE_SCRIPT = fileURLToPath(new URL('./service-process.ts', import.meta.url));

interface Run {
  processes: number;
  rps: number;
  requests: number;
  p50: number;
  p99: number;
  errors: number;
  serviceCpuMsPerRequest: number;
  databaseCpuMsPerRequest: number;
  loadCpuMsPerRequest: number;
  loadAverage: number;
  /** Each service process's largest own memory during the load (process-memory.ts), MiB. */
  peakOwn: number[];
}

async function startServiceProcess(databaseUrl: string, offset: number): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const config = { databaseUrl, trustProxy: true };
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './bench/compiled-code.mjs', SERVICE_SCRIPT, JSON.stringify(config), String(offset)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await readyUrl(child);
  return {
    url,
    child,
    stop: () => endProcess(child, 'SIGTERM'),
  };
}

/**
 * The load: one autocannon instance per URL in one child process, `CONNECTIONS` split evenly,
 * every browser's newest token kept across all of them. Prints the totals as JSON.
 */
function loadGenerator(file: string, urls: string[], seconds = DURATION_S): { child: ChildProcess; result: Promise<{ requests: number; p50: number; p99: number; errors: number; seconds: number }> } {
  const code = `
    const autocannon = require('autocannon');
    const payloads = JSON.parse(require('node:fs').readFileSync(process.argv[1], 'utf8'));
    const urls = JSON.parse(process.argv[2]);
    const connections = Number(process.argv[3]);
    const duration = Number(process.argv[4]);
    ${TOKEN_KEEPING_SOURCE}
    const started = Date.now();
    const runs = urls.map((url, i) => new Promise((resolve, reject) => {
      const share = Math.floor(connections / urls.length) + (i < connections % urls.length ? 1 : 0);
      autocannon({
        url, connections: share, duration, method: 'POST',
        requests: ${AUTOCANNON_REQUESTS_SOURCE},
      }, (err, r) => (err ? reject(err) : resolve(r)));
    }));
    Promise.all(runs).then((results) => {
      const seconds = (Date.now() - started) / 1000;
      const requests = results.reduce((n, r) => n + r.requests.total, 0);
      process.stdout.write(JSON.stringify({
        requests, seconds,
        // Per instance percentiles; the slower instance's are reported.
        p50: Math.max(...results.map((r) => r.latency.p50)), p99: Math.max(...results.map((r) => r.latency.p99)),
        errors: results.reduce((n, r) => n + r.errors + r.timeouts + r.non2xx, 0),
      }));
    }, (err) => { console.error(err); process.exit(1); });
  `;
  let child!: ChildProcess;
  const result = new Promise<{ requests: number; p50: number; p99: number; errors: number; seconds: number }>((resolve, reject) => {
    child = execFile(process.execPath, ['-e', code, file, JSON.stringify(urls), String(CONNECTIONS), String(seconds)], { maxBuffer: 1 << 20, cwd: ROOT }, (err, stdout, stderr) =>
      err ? reject(new Error(`load generator failed: ${stderr || err.message}`)) : resolve(JSON.parse(stdout) as { requests: number; p50: number; p99: number; errors: number; seconds: number }),
    );
  });
  return { child, result };
}

async function measure(processes: number, databaseUrl: string, offset: number, payloadFile: string, db: Kysely<unknown>): Promise<Run> {
  const services = await Promise.all(Array.from({ length: processes }, () => startServiceProcess(databaseUrl, offset)));
  try {
    // A short warm-up per process (caches, JIT, pool connections), not measured.
    const warm = loadGenerator(payloadFile, services.map((s) => `${s.url}/?ci=js/${AGENT_VERSION}`), WARM_UP_S);
    await warm.result.catch(() => undefined);
    const serviceBefore = services.map((s) => processCpuMs(s.child.pid!) ?? 0);
    const databaseBefore = (await postgresBackendCpu(db)) ?? new Map<number, number>();
    const loadAverage = loadavg()[0]!;
    const run = loadGenerator(payloadFile, services.map((s) => `${s.url}/?ci=js/${AGENT_VERSION}`));
    const peaks = peakOwnMemory(services.map((s) => s.child.pid!));
    // The load generator's own CPU, read just before it exits (its process is gone afterwards).
    let loadCpu = 0;
    const sampler = setInterval(() => (loadCpu = processCpuMs(run.child.pid!) ?? loadCpu), 200);
    const result = await run.result.finally(() => clearInterval(sampler));
    const peakOwn = peaks();
    const serviceCpu = services.reduce((sum, s, i) => sum + (processCpuMs(s.child.pid!) ?? 0) - serviceBefore[i]!, 0);
    const databaseCpu = backendCpuUsed(databaseBefore, (await postgresBackendCpu(db)) ?? new Map<number, number>());
    const n = Math.max(1, result.requests);
    return {
      processes,
      rps: result.requests / result.seconds,
      requests: result.requests,
      p50: result.p50,
      p99: result.p99,
      errors: result.errors,
      serviceCpuMsPerRequest: serviceCpu / n,
      databaseCpuMsPerRequest: databaseCpu / n,
      loadCpuMsPerRequest: loadCpu / n,
      loadAverage,
      peakOwn,
    };
  } finally {
    await Promise.all(services.map((s) => s.stop()));
  }
}

async function main(): Promise<void> {
  const database = await createTestDatabase('postgres');
  const databaseUrl = database.config.databaseUrl!;
  // One clock for every process: it starts at the seeded "now" and moves with wall time.
  const offset = SEED_NOW - Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'tessera-scaling-'));
  const observer = openStore({ dataDir: '', databaseUrl, poolSize: 1 });
  const runs: Run[] = [];
  try {
    // Set-up in this process: migrate, bootstrap, seed, and every browser's first visit.
    const setup = await createService({ ...database.config, port: 0, logLevel: 'silent', trustProxy: true, clock: () => Date.now() + offset });
    let payloads: BrowserRequest[];
    try {
      const key = await findApiKeyByToken(setup.ctx.store, setup.bootstrap.publicKey);
      if (!key) throw new Error('bootstrap public key not found');
      await setApiKeyRateLimit(setup.ctx.store, key.id, 1_000_000_000);
      console.log(`seeding ${EVENTS.toLocaleString('en')} events`);
      const stored = await seedEvents(setup, { events: EVENTS, visitors: VISITORS });
      await seedVisitors(setup, stored.visitors);
      await settleAfterSeeding(setup);
      const base = await setup.listen();
      const visits = browserRequests('service-throughput', BROWSERS, setup.bootstrap.publicKey);
      payloads = await sendFirstVisits(`${base}/?ci=js/${AGENT_VERSION}`, visits);
      const first = visits.first;
      console.log(`${first.length.toLocaleString('en')} browsers warmed up; ${payloads.length.toLocaleString('en')} returning visits`);
    } finally {
      await setup.close();
    }
    const payloadFile = join(dir, 'payloads.json');
    writeFileSync(payloadFile, JSON.stringify(payloads));
    const db = kyselyOf(observer) as unknown as Kysely<unknown>;
    for (let round = 1; round <= ROUNDS; round++) {
      for (const processes of PROCESSES) {
        const run = await measure(processes, databaseUrl, offset, payloadFile, db);
        runs.push(run);
        console.log(
          `round ${round}, ${processes} process(es): ${Math.round(run.rps)} identifications/s, p50 ${run.p50} ms, p99 ${run.p99} ms; CPU per request: ` +
            `service ${run.serviceCpuMsPerRequest.toFixed(2)} ms, PostgreSQL ${run.databaseCpuMsPerRequest.toFixed(2)} ms, load generator ${run.loadCpuMsPerRequest.toFixed(2)} ms; ` +
            `own memory at its peak ${run.peakOwn.map(mib).join(', ')}; load average ${run.loadAverage.toFixed(1)}; ${run.errors} errors`,
        );
      }
    }
  } finally {
    await observer.destroy();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }

  const row = (r: Run, round: number) =>
    `| ${round} | ${r.processes} | ${Math.round(r.rps)} | ${r.p50} ms | ${r.p99} ms | ${r.serviceCpuMsPerRequest.toFixed(2)} ms | ${r.databaseCpuMsPerRequest.toFixed(2)} ms | ${r.loadCpuMsPerRequest.toFixed(2)} ms | ${r.peakOwn.map(mib).join(', ')} | ${r.loadAverage.toFixed(1)} | ${r.errors} |`;
  const mean = (processes: number) => {
    const mine = runs.filter((r) => r.processes === processes);
    return mine.reduce((sum, r) => sum + r.rps, 0) / Math.max(1, mine.length);
  };
  const markdown = [
    `${EVENTS.toLocaleString('en')} stored events, ${BROWSERS.toLocaleString('en')} simulated browsers (returning visits with tokens), ${CONNECTIONS} connections split evenly between the processes, ` +
      `${DURATION_S} s per run, ${ROUNDS} rounds alternating the set-ups. A process's own memory is its RssAnon (heap, stacks, native allocations), ` +
      `sampled every ${MEMORY_SAMPLE_MS} ms through the load; each process runs the compiled service under tsx's loader. Service processes, PostgreSQL and the load generator share ` +
      `${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown CPU'}).`,
    '',
    '| Round | Processes | Identifications/s | p50 | p99 | Service CPU / request | PostgreSQL CPU / request | Load generator CPU / request | Own memory at its peak, each process | Load average (1 min) at start | Errors |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...runs.map((r, i) => row(r, Math.floor(i / PROCESSES.length) + 1)),
    '',
    PROCESSES.map((p) => `${p} process(es): ${Math.round(mean(p))} identifications/s on average`).join('; ') +
      (PROCESSES.length === 2 ? `; ratio ${(mean(PROCESSES[1]!) / mean(PROCESSES[0]!)).toFixed(2)}.` : '.'),
  ].join('\n');
  console.log(`\n${markdown}\n`);
  writeBenchOutput({ name: 'postgres-scaling', title: 'Service processes on one PostgreSQL', markdown, figures: { runs } });
}

await main();
