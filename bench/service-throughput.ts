/**
 * Ingestion throughput: identifications per second and p50/p99 latency of `POST /` with
 * realistic agent payloads, on SQLite and on PostgreSQL, each with a database of 1 million
 * stored events and the identities of their 100,000 visitors (rows, profiles and lookup keys:
 * seed-events.ts), next to a bare Fastify JSON echo measured in the same run with the same
 * payloads and the same load.
 *
 *   npm run bench:service
 *   BENCH_ENGINES=sqlite BENCH_EVENTS=100000 npm run bench:service
 *
 * Payloads come from the accuracy simulation's population (bench/accuracy/): each simulated
 * browser makes a first visit during warm-up (creating its visitor and getting its token);
 * the measured load then replays later visits of the same browsers, token attached, as a
 * returning-visitor mix with drift. Load comes from a child process (autocannon, or an open-loop
 * sender at fixed rates), so it does
 * not share the service's event loop. Target (issue 3): ingestion at least a quarter of the
 * echo's rate on SQLite, p99 under 25 ms at 50 connections.
 *
 * The machine may be shared (other processes take CPU from both the server and autocannon),
 * so next to the rates the table prints the server process's CPU time per request during the
 * load (process.cpuUsage: its event loop and its thread pool; not autocannon, not PostgreSQL),
 * a figure that load on the machine disturbs far less than requests per second.
 *
 * Steady load (open loop): after the saturation run, the same requests are sent at fixed rates
 * (autocannon `overallRate`) of 25%, 50% and 75% of the rate that run reached, to both the
 * service and the echo: production runs below saturation, where latency should be the
 * request's own work and not queueing. Each row also gives the share of requests slower than
 * 10 ms and the SQL statements the process executed per identification (counted at the driver,
 * in this bench only: every statement including BEGIN/COMMIT and background work, which is the
 * point). Every response's fresh token replaces the browser's old one, as the agent does.
 * BENCH_RATES=0.25,0.5 changes the fractions (empty: saturation only).
 *
 * Several workers (`tessera start --workers N`, on SQLite): the same saturation load against
 * the real command, started as its own processes on a copy of the same seeded database, once per
 * entry of BENCH_WORKERS (default 1,2,1,2: alternating, so that a change in the machine's load
 * hits both counts; runs of one count are averaged; empty: skipped), one after the other in the
 * same run. These services run on the wall clock (no injected clock: the seeded events are older
 * than the velocity windows, and --retention-days 3650 keeps the purge job off them); their CPU
 * per request is the CPU time of the primary and its workers, read from /proc (Linux). On a
 * machine with fewer cores than workers plus the load generator, the workers share cores.
 * BENCH_ALT_NODE_ARGS="<node options>" starts every second of those commands with these options
 * of node before the CLI (e.g. `--initial-old-space-size=128`, with BENCH_WORKERS=1,1,1,1): an
 * alternated comparison of Node options on the command as it runs in production.
 * BENCH_ALT_CLI=<path of another checkout's bin/tessera.js> starts every second of them from that
 * checkout instead (built with `npm run build:node`, e.g. a `git worktree` of the commit before):
 * an alternated comparison of two builds on one seeded database. BENCH_IN_PROCESS=0 leaves out
 * the in-process runs and the echo (the `tessera start` runs alone, for such comparisons).
 *
 * BENCH_PG_WEEKS=<n> adds n empty partitions of past weeks to PostgreSQL's events before the load,
 * as a long retention keeps them (ten years: about 520; the service then runs with 3650 days of
 * retention so that its purge keeps them): what a statement that plans or locks every
 * partition costs shows there.
 *
 * BENCH_CPU_PROFILE=<dir> writes a V8 CPU profile of the server process during each measured
 * load (not seeding or warm-up) to <dir>/service-<engine>-<load>.cpuprofile, and of every
 * `tessera start` process from start to exit (node --cpu-prof: CPU.<date>.<pid>...cpuprofile).
 */
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { join } from 'node:path';
import Fastify from 'fastify';
import type { Kysely } from 'kysely';
import { VERSION as AGENT_VERSION } from '../src/agent/version.js';
import { createService } from '../src/service/index.js';
import { kyselyOf } from '../src/service/store/index.js';
import { SQLITE_FILE_NAME } from '../src/service/store/database.js';
import { MASTER_KEY_FILE } from '../src/service/master-key.js';
import { TOKEN_SECRET_FILE } from '../src/service/token-secret.js';
import { refreshPlannerStatistics } from '../src/service/store/statistics.js';
import { findApiKeyByToken, setApiKeyRateLimit } from '../src/service/store/api-keys.js';
import { createTestDatabase, createTestSqliteDatabase, type Engine } from '../test/helpers/test-service.js';
import { addPastWeekPartitions } from '../test/helpers/past-partitions.js';
import SQLite from 'better-sqlite3';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { writeBenchOutput } from './bench-output.js';
import { checkpointActivity, scrapeCheckpoints } from './checkpoint-metrics.js';
import { quantile } from './quantile.js';
import { profiled } from './profiles.js';
import { backendCpuUsed, postgresBackendCpu, processCpuMs } from './process-cpu.js';
import { MEMORY_SAMPLE_MS, mib, peakOwnMemory, resident, residentMemory, type Resident } from './process-memory.js';
import { AUTOCANNON_REQUESTS_SOURCE, browserRequests, sendFirstVisits, TOKEN_KEEPING_SOURCE, writeRequestsFile, type BrowserRequest } from './browser-requests.js';
import { SEED_NOW, seedEvents, seedVisitors, settleAfterSeeding } from './seed-events.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const VISITORS = Number(process.env.BENCH_VISITORS ?? 100_000);
const PG_PAST_WEEKS = Number(process.env.BENCH_PG_WEEKS ?? 0);
const BROWSERS = Number(process.env.BENCH_BROWSERS ?? 3000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const ENGINES = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',') as Engine[];
/** BENCH_IN_PROCESS=0: only the `tessera start` runs (no in-process engine runs, no echo). */
const IN_PROCESS = process.env.BENCH_IN_PROCESS !== '0';
const RATES = (process.env.BENCH_RATES ?? '0.25,0.5,0.75').split(',').filter(Boolean).map(Number);
const WORKER_COUNTS = (process.env.BENCH_WORKERS ?? '1,2,1,2').split(',').filter(Boolean).map(Number);
const CLI = join(import.meta.dirname, '..', 'bin', 'tessera.js');


/**
 * SQL statements executed by this process, counted at the drivers (bench only): every
 * better-sqlite3 statement run on the main thread (Kysely runs BEGIN and COMMIT as statements
 * too) and every query sent by a pg client.
 */
let statements = 0;
/**
 * Time spent in each better-sqlite3 statement (by its SQL text as prepared; whitespace is
 * collapsed only for the report, so the timed path does no text work), to show where an
 * identification's SQLite time goes. `iterate` only counts its call, not the rows read after it
 * returns (the service does not use it on hot paths).
 */
const statementTimes = new Map<string, { calls: number; ms: number }>();
function countStatements(): void {
  const probe = new SQLite(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, (...args: unknown[]) => unknown>;
  probe.close();
  for (const method of ['run', 'all', 'get', 'iterate']) {
    const original = proto[method]!;
    proto[method] = function (this: { source: string }, ...args: unknown[]) {
      statements++;
      const started = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        const entry = statementTimes.get(this.source) ?? { calls: 0, ms: 0 };
        entry.calls++;
        entry.ms += performance.now() - started;
        statementTimes.set(this.source, entry);
      }
    };
  }
  if (ENGINES.includes('postgres')) {
    const pg = createRequire(import.meta.url)('pg') as { Client: { prototype: Record<string, (...args: unknown[]) => unknown> } };
    const query = pg.Client.prototype.query!;
    pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
      statements++;
      return query.apply(this, args);
    };
  }
}

interface LoadResult {
  rps: number;
  /** CPU time of this (server) process per completed request during the load, ms. */
  cpuMsPerRequest: number;
  /** PostgreSQL: CPU time of the server's backends for this database per completed request, ms. */
  databaseCpuMsPerRequest?: number;
  p50: number;
  p99: number;
  p99_9: number;
  /** Share of requests that took more than 10 ms (0..1). */
  over10ms: number;
  /** SQL statements executed by the process per completed request. */
  statementsPerRequest: number;
  /** SQLite, in this process: the statements that took the most time during the load. */
  slowestStatements: StatementTime[];
  non2xx: number;
  errors: number;
  requests: number;
  /** Garbage-collection pauses of the server process during the load. */
  gc: { pauses: number; totalMs: number; longestMs: number; major: number; majorMs: number };
  /** Event-loop delay during the load (perf_hooks.monitorEventLoopDelay). */
  loopDelay: { p99Ms: number; maxMs: number };
}

interface StatementTime {
  /** The SQL text, shortened. */
  sql: string;
  callsPerRequest: number;
  /** Mean time of one call, µs. */
  usPerCall: number;
  /** Time per completed request, µs. */
  usPerRequest: number;
}

const SLOWEST_STATEMENTS_SHOWN = Number(process.env.BENCH_STATEMENTS_SHOWN ?? 6);

/** The statements that took the most time since `before` (a copy of statementTimes), per request. */
function slowestStatementsSince(before: Map<string, { calls: number; ms: number }>, requests: number): StatementTime[] {
  return [...statementTimes]
    .map(([sqlText, now]) => {
      const was = before.get(sqlText) ?? { calls: 0, ms: 0 };
      return { sqlText, calls: now.calls - was.calls, ms: now.ms - was.ms };
    })
    .filter((s) => s.calls > 0)
    .sort((a, b) => b.ms - a.ms)
    .slice(0, SLOWEST_STATEMENTS_SHOWN)
    .map((s) => {
      const sqlText = s.sqlText.replace(/\s+/g, ' ').trim();
      return {
        sql: sqlText.length > 90 ? `${sqlText.slice(0, 90)}...` : sqlText,
        callsPerRequest: s.calls / Math.max(1, requests),
        usPerCall: (s.ms * 1000) / s.calls,
        usPerRequest: (s.ms * 1000) / Math.max(1, requests),
      };
    });
}

/** First visits and later visits of a simulated population, rendered in the wire format. */
const buildVisits = (publicKey: string) => browserRequests('service-throughput', BROWSERS, publicKey);


/** CPU time (user + system) of this process so far, ms. */
const ownCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

async function load(url: string, payloads: BrowserRequest[], rate?: number, serverCpuMs: () => number = ownCpuMs, database?: Kysely<unknown>): Promise<LoadResult> {
  // Serialising and writing thousands of payloads is the bench's work, not the server's: done
  // before the CPU measurement starts.
  const { file, remove } = writeRequestsFile(payloads);
  // Where latency tails come from: garbage-collection pauses and how late the event loop ran
  // its timers (a 10 ms sampling timer; any synchronous stretch shows up as delay).
  const gcPauses: { ms: number; major: boolean }[] = [];
  const gcObserver = new PerformanceObserver((list) =>
    gcPauses.push(...list.getEntries().map((e) => ({ ms: e.duration, major: (e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR }))),
  );
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  try {
    gcObserver.observe({ entryTypes: ['gc'] });
    loopDelay.enable();
    const databaseBefore = database && (await postgresBackendCpu(database));
    const statementsBefore = statements;
    const timesBefore = new Map([...statementTimes].map(([sqlText, t]) => [sqlText, { ...t }]));
    const cpuBefore = serverCpuMs();
    const result = await runAutocannon(url, file, rate);
    const cpu = serverCpuMs() - cpuBefore;
    const databaseAfter = database && (await postgresBackendCpu(database));
    return {
      ...result,
      cpuMsPerRequest: cpu / Math.max(1, result.requests),
      ...(databaseBefore !== undefined && databaseAfter !== undefined
        ? { databaseCpuMsPerRequest: backendCpuUsed(databaseBefore, databaseAfter) / Math.max(1, result.requests) }
        : {}),
      statementsPerRequest: (statements - statementsBefore) / Math.max(1, result.requests),
      slowestStatements: slowestStatementsSince(timesBefore, result.requests),
      gc: {
        pauses: gcPauses.length,
        totalMs: gcPauses.reduce((a, b) => a + b.ms, 0),
        longestMs: Math.max(0, ...gcPauses.map((p) => p.ms)),
        major: gcPauses.filter((p) => p.major).length,
        majorMs: gcPauses.filter((p) => p.major).reduce((a, b) => a + b.ms, 0),
      },
      loopDelay: { p99Ms: loopDelay.percentile(99) / 1e6, maxMs: loopDelay.max / 1e6 },
    };
  } finally {
    gcObserver.disconnect();
    loopDelay.disable();
    remove();
  }
}

type AutocannonResult = Omit<LoadResult, 'cpuMsPerRequest' | 'databaseCpuMsPerRequest' | 'statementsPerRequest' | 'slowestStatements' | 'gc' | 'loopDelay'>;

/**
 * The load generator runs in a child process (its own event loop, so it does not queue behind
 * the service; autocannon returns raw histograms when run inside a worker thread), cycling
 * through the payloads.
 *
 * Saturation (no `rate`): autocannon, each connection sending as fast as it is answered.
 *
 * Fixed rate: autocannon's own rate option sends each connection's quota for the second in a
 * burst at the start of every second and then pauses, which measures queueing in that burst,
 * not steady load. So the fixed-rate load is a small open-loop sender instead: request i is due
 * at i / rate seconds and is sent then (on one of up to `connections` keep-alive sockets, more
 * requests wait for a free one), whatever the earlier requests' latencies; latency counts from
 * the due time, so queueing on the client side is not hidden (no coordinated omission).
 */
async function runAutocannon(url: string, file: string, rate?: number): Promise<AutocannonResult> {
  const shared = `
    const payloads = JSON.parse(require('node:fs').readFileSync(process.argv[1], 'utf8'));
    const [url, connections, duration, rate] = process.argv.slice(2);
    ${TOKEN_KEEPING_SOURCE}
  `;
  const closedLoop = `
    const autocannon = require('autocannon');
    let slow = 0;
    const instance = autocannon({
      url, connections: Number(connections), duration: Number(duration), method: 'POST',
      requests: ${AUTOCANNON_REQUESTS_SOURCE},
    }, (err, r) => {
      if (err) { console.error(err); process.exit(1); }
      process.stdout.write(JSON.stringify({
        rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, p99_9: r.latency.p99_9,
        over10ms: slow / Math.max(1, r.requests.total),
        non2xx: r.non2xx, errors: r.errors + r.timeouts, requests: r.requests.total,
      }));
    });
    instance.on('response', (_client, _status, _bytes, responseTime) => { if (responseTime > 10) slow++; });
  `;
  const openLoop = `
    const http = require('node:http');
    const agent = new http.Agent({ keepAlive: true, maxSockets: Number(connections) });
    const target = new URL(url);
    const intervalMs = 1000 / Number(rate);
    const durationMs = Number(duration) * 1000;
    const latencies = [];
    let sent = 0, inFlight = 0, non2xx = 0, errors = 0;
    const start = performance.now();
    const send = (dueAt) => {
      const { p, body } = nextRequest();
      inFlight++;
      const req = http.request({ agent, method: 'POST', hostname: target.hostname, port: target.port, path: target.pathname + target.search,
        headers: { ...p.headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          latencies.push(performance.now() - dueAt);
          if (res.statusCode < 200 || res.statusCode > 299) non2xx++;
          keepToken(p.browser, res.statusCode, Buffer.concat(chunks).toString());
          done();
        });
      });
      req.on('error', () => { errors++; done(); });
      req.end(body);
    };
    const done = () => { if (--inFlight === 0 && sent * intervalMs >= durationMs) report(); };
    const report = () => {
      const elapsed = (performance.now() - start) / 1000;
      latencies.sort((a, b) => a - b);
      const at = (q) => latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] : 0;
      process.stdout.write(JSON.stringify({
        rps: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), p99_9: at(0.999),
        over10ms: latencies.filter((l) => l > 10).length / Math.max(1, latencies.length),
        non2xx, errors, requests: latencies.length,
      }));
      agent.destroy();
    };
    const tick = () => {
      const now = performance.now() - start;
      while (sent * intervalMs <= now && sent * intervalMs < durationMs) send(start + sent++ * intervalMs);
      if (sent * intervalMs < durationMs) setTimeout(tick, 1);
      else if (inFlight === 0) report();
    };
    tick();
  `;
  const code = shared + (rate ? openLoop : closedLoop);
  const output = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, ['-e', code, file, url, String(CONNECTIONS), String(DURATION_S), String(rate ?? 0)], { maxBuffer: 1 << 20 },
      (err, stdout, stderr) => (err ? reject(new Error(`load generator failed: ${stderr || err.message}`)) : resolve(stdout)));
  });
  return JSON.parse(output) as AutocannonResult;
}

/** A load at a fixed rate: `fraction` of the saturation rate of the same run. */
interface SteadyLoad {
  fraction: number;
  rate: number;
  result: LoadResult;
}

/** The bare Fastify echo, loaded like the service: saturation, then the same fixed rates. */
async function echoPeer(payloads: BrowserRequest[], rates: number[]): Promise<{ saturation: LoadResult; steady: LoadResult[] }> {
  const app = Fastify({ logger: false, trustProxy: true });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, JSON.parse(body as string)));
  app.post('/', async (request) => request.body);
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const saturation = await load(`${url}/`, payloads);
    const steady: LoadResult[] = [];
    for (const rate of rates) steady.push(await load(`${url}/`, payloads, rate));
    return { saturation, steady };
  } finally {
    await app.close();
  }
}


async function runEngine(engine: Engine, buildPayloads: (publicKey: string) => ReturnType<typeof buildVisits>) {
  const database = await createTestDatabase(engine);
  // The clock starts at the seeded "now", and moves with wall time from there.
  const offset = SEED_NOW - Date.now();
  const longRetention = engine === 'postgres' && PG_PAST_WEEKS > 0;
  const service = await createService({
    ...database.config, port: 0, logLevel: 'silent', trustProxy: true, clock: () => Date.now() + offset,
    ...(longRetention ? { retentionDays: 3650 } : {}),
  });
  try {
    const key = await findApiKeyByToken(service.ctx.store, service.bootstrap.publicKey);
    if (!key) throw new Error('bootstrap public key not found');
    await setApiKeyRateLimit(service.ctx.store, key.id, 1_000_000_000);
    console.log(`\n${engine}: seeding ${EVENTS.toLocaleString('en')} events`);
    const seededEvents = await seedEvents(service, { events: EVENTS, visitors: VISITORS });
    await seedVisitors(service, seededEvents.visitors);
    // A database that grew to this size would have fresh planner statistics by now (the
    // service's job on SQLite, autovacuum on PostgreSQL: settleAfterSeeding); the seeding outran both.
    if (engine === 'sqlite') {
      // Timed: the service's statistics job runs this on the one connection ingestion uses.
      const started = performance.now();
      await refreshPlannerStatistics(service.ctx.store);
      const first = performance.now() - started;
      await refreshPlannerStatistics(service.ctx.store);
      const again = performance.now() - started - first;
      console.log(`  planner statistics job: ${first.toFixed(0)} ms after seeding, ${again.toFixed(0)} ms when run again`);
    } else if (longRetention) {
      console.log(`  ${await addPastWeekPartitions(kyselyOf(service.ctx.store), PG_PAST_WEEKS)} partitions of events`);
    }
    await settleAfterSeeding(service);
    const base = await service.listen();
    const endpoint = `${base}/?ci=js/${AGENT_VERSION}`;

    const visits = buildPayloads(service.bootstrap.publicKey);
    const returning = await sendFirstVisits(endpoint, visits);
    console.log(`  ${visits.first.length.toLocaleString('en')} browsers warmed up; measuring with ${returning.length.toLocaleString('en')} returning visits`);
    const database = engine === 'postgres' ? (kyselyOf(service.ctx.store) as unknown as Kysely<unknown>) : undefined;
    const saturation = await profiled(`service-${engine}-saturation`, () => load(endpoint, returning, undefined, ownCpuMs, database));
    const steady: SteadyLoad[] = [];
    for (const fraction of RATES) {
      const rate = Math.max(1, Math.round(saturation.rps * fraction));
      const result = await profiled(`service-${engine}-${Math.round(fraction * 100)}pct`, () => load(endpoint, returning, rate, ownCpuMs, database));
      steady.push({ fraction, rate, result });
    }
    const stored = await kyselyOf(service.ctx.store).selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { saturation, steady, storedEvents: Number(stored.n), payloads: returning, memory: residentMemory(process.pid) };
  } finally {
    await service.close();
    await database.drop();
  }
}

/**
 * CPU time (user + system) of processes so far, ms (process-cpu.ts). Throws when one has gone:
 * its time would drop out of the total and falsify the difference.
 */
function processesCpuMs(pids: number[]): number {
  return pids.reduce((sum, pid) => {
    const ms = processCpuMs(pid);
    if (ms === undefined) throw new Error(`process ${pid} has gone`);
    return sum + ms;
  }, 0);
}

/**
 * `tessera start --workers N` for each N of BENCH_WORKERS, on copies of one seeded SQLite
 * database: each is warmed up and loaded to saturation like the in-process service.
 */
interface WorkersRun {
  workers: number;
  result: LoadResult;
  /** An open-loop load at half the saturation rate just measured, against the same processes. */
  half: LoadResult;
  /** The same load's requests as the service timed them itself (its access log). */
  halfInService: ServiceTimes;
  /** The WAL checkpoint worker during that load (its metrics): share of the wall time per step, restarts. */
  halfCheckpoints?: ReturnType<typeof checkpointActivity>;
  memory: Resident[];
  /** Each process's largest own memory during both loads (peakOwnMemory), MiB, the primary first. */
  peakOwn: number[];
}

/**
 * Request times as the service measured them: Fastify's `responseTime` in the access log, from
 * the request's arrival in Fastify's handler chain to the last byte of the answer, ms. What it
 * leaves out, against the load generator's figures: the wait before the event loop reads the
 * request, the loopback and the generator's own delays (the three share the machine's cores).
 */
interface ServiceTimes {
  requests: number;
  p50: number;
  p99: number;
  p99_9: number;
  over10ms: number;
}

/**
 * Collects the `responseTime` of the access log lines of requests that arrived while it runs
 * (a request still in flight from an earlier load is left out: it arrived before).
 */
function serviceTimesRecorder() {
  let since: number | undefined;
  const times: number[] = [];
  return {
    start() {
      since = Date.now();
    },
    line(line: string) {
      if (since === undefined || !line.includes('"responseTime"')) return;
      const entry = JSON.parse(line) as { time: number; responseTime: number };
      if (entry.time - entry.responseTime >= since) times.push(entry.responseTime);
    },
    stop(): ServiceTimes {
      since = undefined;
      const sorted = times.splice(0).sort((a, b) => a - b);
      return {
        requests: sorted.length,
        p50: quantile(sorted, 0.5),
        p99: quantile(sorted, 0.99),
        p99_9: quantile(sorted, 0.999),
        over10ms: sorted.filter((t) => t > 10).length / Math.max(1, sorted.length),
      };
    },
  };
}

async function runWorkers(buildPayloads: (publicKey: string) => ReturnType<typeof buildVisits>): Promise<WorkersRun[]> {
  const seeded = createTestSqliteDatabase();
  const copies: string[] = [];
  try {
    const service = await createService({ ...seeded.config, port: 0, logLevel: 'silent' });
    try {
      const key = await findApiKeyByToken(service.ctx.store, service.bootstrap.publicKey);
      await setApiKeyRateLimit(service.ctx.store, key!.id, 1_000_000_000);
      console.log(`\nsqlite, tessera start --workers ${WORKER_COUNTS.join(', ')}: seeding ${EVENTS.toLocaleString('en')} events`);
      const stored = await seedEvents(service, { events: EVENTS, visitors: VISITORS });
      await seedVisitors(service, stored.visitors);
      await refreshPlannerStatistics(service.ctx.store);
    } finally {
      await service.close();
    }
    const results: WorkersRun[] = [];
    for (const workers of WORKER_COUNTS) {
      const dataDir = mkdtempSync(join(tmpdir(), 'tessera-bench-workers-'));
      copies.push(dataDir);
      // SQLite's backup: a consistent copy whatever the closing service's checkpointer thread is
      // still doing with the WAL; then the key files the database goes with.
      const source = new SQLite(join(seeded.config.dataDir!, SQLITE_FILE_NAME), { readonly: true });
      try {
        await source.backup(join(dataDir, SQLITE_FILE_NAME));
      } finally {
        source.close();
      }
      for (const file of [MASTER_KEY_FILE, TOKEN_SECRET_FILE]) copyFileSync(join(seeded.config.dataDir!, file), join(dataDir, file));
      // BENCH_CPU_PROFILE: V8's profiler in the command's processes too, written as each exits.
      const profiling = process.env.BENCH_CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`] : [];
      // At the default log level, as it runs in production: one access line per request.
      const alt = process.env.BENCH_ALT_NODE_ARGS && results.length % 2 === 1 ? process.env.BENCH_ALT_NODE_ARGS.split(' ').filter(Boolean) : [];
      if (alt.length) console.log(`  (node ${alt.join(' ')})`);
      const cli = process.env.BENCH_ALT_CLI && results.length % 2 === 1 ? process.env.BENCH_ALT_CLI : CLI;
      if (cli !== CLI) console.log(`  (${cli})`);
      const child = spawn(process.execPath, [...profiling, ...alt, cli, 'start', '--workers', String(workers), '--port', '0', '--json',
        '--trust-proxy', '--no-demo', '--retention-days', '3650', '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
      const exited = new Promise((resolve) => child.on('close', resolve));
      const serviceTimes = serviceTimesRecorder();
      try {
        const report = await new Promise<{ url: string; urls: { cdn_esm: string } }>((resolve, reject) => {
          createInterface({ input: child.stdout }).on('line', (line) => {
            serviceTimes.line(line);
            if (line.includes('"urls"')) resolve(JSON.parse(line) as { url: string; urls: { cdn_esm: string } });
          });
          child.on('close', (code) => reject(new Error(`tessera start --workers ${workers} exited (${code})`)));
        });
        // The primary and its workers (Linux: the kernel lists a process's children).
        const children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
        const pids = [child.pid!, ...children];
        const publicKey = report.urls.cdn_esm.split('/').pop()!;
        const endpoint = `${report.url}/?ci=js/${AGENT_VERSION}`;
        const returning = await sendFirstVisits(endpoint, buildPayloads(publicKey));
        const peaks = peakOwnMemory(pids);
        const primaryBefore = processesCpuMs([child.pid!]);
        const result = await load(endpoint, returning, undefined, () => processesCpuMs(pids));
        const primary = (processesCpuMs([child.pid!]) - primaryBefore) / Math.max(1, result.requests);
        const memory = pids.map(residentMemory);
        console.log(`  --workers ${workers} (${children.length} worker processes): ${rate(result.rps)} identifications/s, p50 ${ms(result.p50)}, p99 ${ms(result.p99)}, ` +
          `${cpu(result.cpuMsPerRequest)} CPU per request (all processes${children.length > 0 ? `; the primary ${cpu(primary)}` : ''}), ${result.non2xx} non-2xx, ${result.errors} errors`);
        console.log(`  resident memory after the load: ${memory.map(resident).join('; ')} (the primary first)`);
        // The latency target's load, on the command as it runs in production (no bench heap or statement counting in its process).
        const checkpointsBefore = await scrapeCheckpoints(report.url, 2 * workers + 1);
        const halfStarted = performance.now();
        serviceTimes.start();
        const half = await load(endpoint, returning, Math.round(result.rps / 2), () => processesCpuMs(pids));
        const halfSeconds = (performance.now() - halfStarted) / 1000;
        const checkpointsAfter = await scrapeCheckpoints(report.url, 2 * workers + 1);
        const halfCheckpoints = checkpointsBefore && checkpointsAfter ? checkpointActivity(checkpointsBefore, checkpointsAfter, halfSeconds) : undefined;
        // The last access lines may still be in the pipe.
        await new Promise((resolve) => setTimeout(resolve, 200));
        const halfInService = serviceTimes.stop();
        const peakOwn = peaks();
        console.log(`  --workers ${workers} at half that rate (${rate(result.rps / 2)}/s): p50 ${ms(half.p50)}, p99 ${ms(half.p99)}, p99.9 ${ms(half.p99_9)}, ${pct(half.over10ms)} over 10 ms; ` +
          `as the service timed them (${halfInService.requests.toLocaleString('en')} access log lines): p50 ${ms(halfInService.p50)}, p99 ${ms(halfInService.p99)}, p99.9 ${ms(halfInService.p99_9)}, ${pct(halfInService.over10ms)} over 10 ms` +
          (halfCheckpoints ? `; ${checkpointLine(halfCheckpoints)}` : ''));
        console.log(`  own memory at its peak during both loads (sampled every ${MEMORY_SAMPLE_MS} ms): ${peakOwn.map(mib).join('; ')} (the primary first)`);
        results.push({ workers, result, half, halfInService, halfCheckpoints, memory, peakOwn });
      } finally {
        child.kill('SIGTERM');
        await exited;
      }
    }
    return results;
  } finally {
    for (const dir of copies) rmSync(dir, { recursive: true, force: true });
    await seeded.drop();
  }
}

const ms = (n: number) => `${n.toFixed(1)} ms`;
/** The checkpoint worker's share of a load's wall time, from its metrics. */
const checkpointLine = (c: ReturnType<typeof checkpointActivity>) =>
  `the WAL checkpoint worker busy ${pct(c.passive + c.sync + c.restart)} of the time (passive passes ${pct(c.passive)}, syncs ${pct(c.sync)}, ${c.restarts} restarts with the write lock held ${pct(c.restart)})`;
const rate = (n: number) => Math.round(n).toLocaleString('en');
const cpu = (n: number) => `${n.toFixed(3)} ms`;
/** The server's CPU per request, and PostgreSQL's when measured. */
const cpus = (r: LoadResult) => (r.databaseCpuMsPerRequest === undefined ? cpu(r.cpuMsPerRequest) : `${cpu(r.cpuMsPerRequest)} (+ ${cpu(r.databaseCpuMsPerRequest)} PostgreSQL)`);
const pct = (n: number) => `${(n * 100).toFixed(1)}%`;
const pauses = (r: LoadResult) =>
  `${r.gc.pauses.toLocaleString('en')} GC pauses (${ms(r.gc.totalMs)} in all, longest ${ms(r.gc.longestMs)}; ${r.gc.major} mark-compacts, ${ms(r.gc.majorMs)}), event-loop delay p99 ${ms(r.loopDelay.p99Ms)}, max ${ms(r.loopDelay.maxMs)}`;
/**
 * One row of the steady-load table. `inProcess`: the server ran in this process, so its
 * statements and event loop were observed (not so for a `tessera start` process).
 */
const steadyRow = (who: string, load: string, r: LoadResult, inProcess = true) =>
  `| ${who} | ${load} | ${rate(r.rps)} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.p99_9)} | ${pct(r.over10ms)} | ${cpus(r)} | ` +
  `${inProcess ? r.statementsPerRequest.toFixed(2) : 'n/a'} | ${inProcess ? `${ms(r.loopDelay.p99Ms)} / ${ms(r.loopDelay.maxMs)}` : 'n/a'} | ${r.non2xx + r.errors} |`;

async function main(): Promise<void> {
  countStatements();
  const rows: string[] = [];
  const steadyRows: string[] = [];
  const notes: string[] = [];
  const figures: Record<string, unknown> = {};
  const loadAtStart = loadavg().map((l) => l.toFixed(1)).join(', ');
  let echoSaturation: LoadResult | undefined;
  for (const engine of IN_PROCESS ? ENGINES : []) {
    const { saturation: result, steady, storedEvents, payloads, memory } = await runEngine(engine, buildVisits);
    // The echo peer gets the same payloads and the same loads, right after.
    const echo = await echoPeer(payloads, steady.map((s) => s.rate));
    echoSaturation ??= echo.saturation;
    const share = result.rps / echoSaturation.rps;
    console.log(`  ${engine}: ${rate(result.rps)} identifications/s, p50 ${ms(result.p50)}, p99 ${ms(result.p99)}, ` +
      `${cpus(result)} CPU per request, ${result.statementsPerRequest.toFixed(2)} statements per request, ${result.non2xx} non-2xx, ${result.errors} errors; ` +
      `${storedEvents.toLocaleString('en')} events stored after the run`);
    notes.push(`${engine}: ${pauses(result)}; resident memory after its loads ${resident(memory)} (the bench process: the service with ${storedEvents.toLocaleString('en')} events stored, and the bench's seeding and request set)`);
    rows.push(`| Tessera ingestion, ${engine} | ${rate(result.rps)} | ${ms(result.p50)} | ${ms(result.p99)} | ${cpus(result)} | ${(share * 100).toFixed(0)}% | ${result.non2xx + result.errors} |`);
    steadyRows.push(steadyRow(`Tessera, ${engine}`, 'saturation', result));
    steady.forEach((s, i) => {
      const label = `${Math.round(s.fraction * 100)}% (${rate(s.rate)}/s)`;
      steadyRows.push(steadyRow(`Tessera, ${engine}`, label, s.result));
      steadyRows.push(steadyRow('echo', label, echo.steady[i]!));
      console.log(`  ${engine} at ${label}: p50 ${ms(s.result.p50)}, p99 ${ms(s.result.p99)}, p99.9 ${ms(s.result.p99_9)}, ${pct(s.result.over10ms)} over 10 ms, ` +
        `${cpus(s.result)} CPU and ${s.result.statementsPerRequest.toFixed(2)} statements per request; ${pauses(s.result)}`);
    });
    figures[engine] = { ...result, storedEvents, shareOfEcho: share, steady, echoSteady: echo.steady, memory };
  }
  const sqliteSaturation = (figures.sqlite as { slowestStatements?: StatementTime[] } | undefined)?.slowestStatements ?? [];
  const statementRows =
    sqliteSaturation.length === 0
      ? []
      : [
          '',
          `Where the SQLite time of an identification went at saturation (the in-process sqlite run; each statement's time measured around its call at the driver, rows returned included): the ${SLOWEST_STATEMENTS_SHOWN} statements that took the most.`,
          '',
          '| Statement | Calls per request | Time per call | Time per request |',
          '| --- | ---: | ---: | ---: |',
          ...sqliteSaturation.map((t) => `| \`${t.sql.replace(/\|/g, '\\|')}\` | ${t.callsPerRequest.toFixed(2)} | ${t.usPerCall.toFixed(0)} µs | ${t.usPerRequest.toFixed(0)} µs |`),
        ];
  const workerRows: string[] = [];
  if (ENGINES.includes('sqlite') && WORKER_COUNTS.length > 0) {
    const runs = await runWorkers(buildVisits);
    for (const { workers, result, half, halfInService: own, halfCheckpoints, memory, peakOwn } of runs) {
      workerRows.push(`\`--workers ${workers}\` resident memory after its load: ${memory.map(resident).join('; ')}, own memory at its peak during the loads ${peakOwn.map(mib).join('; ')} (the primary first, then each worker)`);
      if (halfCheckpoints) workerRows.push(`\`--workers ${workers}\` at half rate: ${checkpointLine(halfCheckpoints)}`);
      steadyRows.push(steadyRow(`Tessera, sqlite, \`tessera start --workers ${workers}\``, `50% (${rate(half.rps)}/s)`, half, false));
      steadyRows.push(`| the same, as the service timed it (access log) | 50% | | ${ms(own.p50)} | ${ms(own.p99)} | ${ms(own.p99_9)} | ${pct(own.over10ms)} | | | | |`);
      const share = echoSaturation ? `${((result.rps / echoSaturation.rps) * 100).toFixed(0)}%` : 'n/a';
      rows.push(`| Tessera ingestion, sqlite, \`tessera start --workers ${workers}\` | ${rate(result.rps)} | ${ms(result.p50)} | ${ms(result.p99)} | ${cpu(result.cpuMsPerRequest)} | ${share} | ${result.non2xx + result.errors} |`);
    }
    // Runs of one worker count (BENCH_WORKERS may repeat counts, alternating, against drift in the machine's load) are averaged.
    const mean = (workers: number, of: (r: LoadResult) => number) => {
      const mine = runs.filter((r) => r.workers === workers).map((r) => of(r.result));
      return mine.reduce((a, b) => a + b, 0) / mine.length;
    };
    const counts = [...new Set(runs.map((r) => r.workers))];
    const speedups: Record<string, { rate: number; cpuPerRequest: number; oneWorkerCores: number; ceiling: number }> = {};
    if (counts.includes(1)) {
      // One process keeps more than one core busy at saturation (its garbage collector's and
      // SQLite's checkpoint threads): N workers' ceiling is N cores at their own CPU per request,
      // against what one worker served, not N divided by the CPU ratio alone.
      const oneWorkerRate = mean(1, (r) => r.rps);
      const oneWorkerCores = (oneWorkerRate * mean(1, (r) => r.cpuMsPerRequest)) / 1000;
      for (const workers of counts.filter((n) => n > 1)) {
        const rateRatio = mean(workers, (r) => r.rps) / oneWorkerRate;
        const cpuRatio = mean(workers, (r) => r.cpuMsPerRequest) / mean(1, (r) => r.cpuMsPerRequest);
        const ceiling = (workers * 1000) / mean(workers, (r) => r.cpuMsPerRequest) / oneWorkerRate;
        speedups[workers] = { rate: rateRatio, cpuPerRequest: cpuRatio, oneWorkerCores, ceiling };
        workerRows.push(`\`--workers ${workers}\` served ${rateRatio.toFixed(2)}x the requests per second of \`--workers 1\` and spent ${cpuRatio.toFixed(2)}x its CPU per request; ` +
          `\`--workers 1\` kept ${oneWorkerCores.toFixed(2)} cores busy, so with ${workers} cores for its processes alone \`--workers ${workers}\` would serve at most ${ceiling.toFixed(2)}x its rate`);
      }
    }
    figures.workers = { runs: runs.map(({ workers, result, half, halfInService, halfCheckpoints, memory, peakOwn }) => ({ workers, ...result, half, halfInService, halfCheckpoints, memory, peakOwn })), speedups };
  }
  if (echoSaturation) {
    const echo = echoSaturation;
    rows.push(`| peer: bare Fastify JSON echo | ${rate(echo.rps)} | ${ms(echo.p50)} | ${ms(echo.p99)} | ${cpu(echo.cpuMsPerRequest)} | 100% | ${echo.non2xx + echo.errors} |`);
    figures.echo = echo;
    notes.push(`echo: ${pauses(echo)}`);
  }
  const markdown = [
    `${EVENTS.toLocaleString('en')} stored events of ${VISITORS.toLocaleString('en')} visitors (each with its visitor row, profile and lookup keys) before the run` +
      (PG_PAST_WEEKS > 0 && ENGINES.includes('postgres') ? `, and on PostgreSQL ${PG_PAST_WEEKS} empty partitions of past weeks (a long retention's)` : '') +
      `; ${BROWSERS.toLocaleString('en')} simulated browsers ` +
      `warmed up with their first visit, then their later visits (each with the newest token its browser received, with drift, from its own address through X-Forwarded-For; each browser's visits spread over the load, not sent together) sent by autocannon: ${CONNECTIONS} connections, ${DURATION_S} s per load, over loopback. ` +
      `Target: at least 25% of the echo's rate on SQLite, p99 < 25 ms. Load average at the start: ${loadAtStart}, at the end: ${loadavg().map((l) => l.toFixed(1)).join(', ')} on ${availableParallelism()} cores.`,
    '',
    '| Server | Requests/s | p50 | p99 | Server CPU per request | Share of echo (rate) | Errors |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    `Server process during the load: ${notes.join('; ')}.`,
    ...(workerRows.length > 0
      ? [
          '',
          `\`tessera start --workers N\` rows: the command in its own processes (a primary and N workers; for N = 1 the one process) on a copy of the same seeded SQLite database, ` +
            `at the default log level (one access line per request, read by the benchmark), with the wall clock (the seeded events lie outside the velocity windows), loaded one after the other, alternating; CPU per request counts the primary and its workers (/proc). ` +
            `${workerRows.join('; ')}, with ${availableParallelism()} cores for the workers, the primary and the load generator together.`,
        ]
      : []),
    '',
    `Steady load: fixed rates (open loop) at fractions of each engine's saturation rate, the echo at the same rates; \`tessera start\` rows: half the rate that command's own saturation run reached, right after it; below each, the same requests as the service timed them (Fastify's responseTime in its access log: from the request's arrival in Fastify's handler chain to the answer's last byte; it leaves out the wait before the event loop reads the request, the loopback and the load generator, which share the cores). ` +
      `Statements: SQL statements the process executed per request (BEGIN/COMMIT and background work included).`,
    '',
    '| Server | Load | Requests/s | p50 | p99 | p99.9 | > 10 ms | CPU per request | Statements per request | Event-loop delay p99 / max | Errors |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...steadyRows,
    ...statementRows,
  ].join('\n');
  console.log(`\n${markdown}\n`);
  writeBenchOutput({ name: 'service-throughput', title: 'Service throughput (ingestion)', markdown, figures });
}

await main();
