/**
 * Ingestion throughput: identifications per second and p50/p99 latency of `POST /` with
 * realistic agent payloads, on SQLite and on PostgreSQL, each with a database of 1 million
 * stored events, next to a bare Fastify JSON echo measured in the same run with the same
 * payloads and the same load.
 *
 *   npm run bench:service
 *   BENCH_ENGINES=sqlite BENCH_EVENTS=100000 npm run bench:service
 *
 * Payloads come from the accuracy simulation's population (bench/accuracy/): each simulated
 * browser makes a first visit during warm-up (creating its visitor and getting its token);
 * the measured load then replays later visits of the same browsers, token attached, as a
 * returning-visitor mix with drift. Load comes from autocannon in a child process, so it does
 * not share the service's event loop. Target (issue 3): ingestion at least a quarter of the
 * echo's rate on SQLite, p99 under 25 ms at 50 connections.
 *
 * The machine may be shared (other processes take CPU from both the server and autocannon),
 * so next to the rates the table prints the server process's CPU time per request during the
 * load (process.cpuUsage: its event loop and its thread pool; not autocannon, not PostgreSQL),
 * a figure that load on the machine disturbs far less than requests per second.
 *
 * BENCH_CPU_PROFILE=<dir> writes a V8 CPU profile of the server process during each measured
 * load (not seeding or warm-up) to <dir>/service-<engine>.cpuprofile.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { join } from 'node:path';
import Fastify from 'fastify';
import { sql } from 'kysely';
import { PROTOCOL_VERSION, type IdentifyRequest, type IdentifyResponse } from '../src/protocol/index.js';
import { VERSION as AGENT_VERSION } from '../src/agent/version.js';
import { createService } from '../src/service/index.js';
import { kyselyOf } from '../src/service/store/index.js';
import { refreshPlannerStatistics } from '../src/service/store/statistics.js';
import { findApiKeyByToken, setApiKeyRateLimit } from '../src/service/store/api-keys.js';
import { createTestDatabase, type Engine } from '../test/helpers/test-service.js';
import { generatePopulation } from './accuracy/population.js';
import { renderVisit } from './accuracy/render-visit.js';
import { planBrowserVisits } from './accuracy/schedule.js';
import { writeBenchOutput } from './bench-output.js';
import { SEED_NOW, seedEvents } from './seed-events.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const VISITORS = Number(process.env.BENCH_VISITORS ?? 100_000);
const BROWSERS = Number(process.env.BENCH_BROWSERS ?? 3000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const ENGINES = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',') as Engine[];
const CPU_PROFILE_DIR = process.env.BENCH_CPU_PROFILE;

interface Payload {
  body: string;
  headers: Record<string, string>;
}

interface LoadResult {
  rps: number;
  /** CPU time of this (server) process per completed request during the load, ms. */
  cpuMsPerRequest: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  requests: number;
  /** Garbage-collection pauses of the server process during the load. */
  gc: { pauses: number; totalMs: number; longestMs: number };
  /** Event-loop delay during the load (perf_hooks.monitorEventLoopDelay). */
  loopDelay: { p99Ms: number; maxMs: number };
}

interface BrowserPayload {
  /** The simulated browser's index in the population. */
  browser: number;
  payload: Payload;
}

/** First visits and later visits of a simulated population, rendered in the wire format. */
function buildVisits(publicKey: string): { first: BrowserPayload[]; later: BrowserPayload[] } {
  const seed = 'service-throughput';
  const population = generatePopulation({ seed, browsers: BROWSERS, days: 30 });
  const first: BrowserPayload[] = [];
  const later: BrowserPayload[] = [];
  for (const browser of population.browsers) {
    const visits = planBrowserVisits(seed, browser, 30).filter((v) => !v.private);
    visits.forEach((visit, i) => {
      const rendered = renderVisit(seed, browser, visit);
      const request: IdentifyRequest = {
        v: PROTOCOL_VERSION,
        api_key: publicKey,
        url: rendered.url,
        sdk: { platform: 'js', version: AGENT_VERSION },
        signals: rendered.signals,
        ...(rendered.signalErrors ? { signal_errors: rendered.signalErrors } : {}),
      };
      const payload = {
        body: JSON.stringify(request),
        headers: {
          'content-type': 'text/plain',
          'x-forwarded-for': rendered.ip,
          'user-agent': rendered.userAgentHeader,
          'accept-language': rendered.acceptLanguage,
        },
      };
      (i === 0 ? first : later).push({ browser: browser.index, payload });
    });
  }
  return { first, later };
}

/** Runs `measure` under the V8 CPU profiler when BENCH_CPU_PROFILE is set. */
async function profiled<T>(name: string, measure: () => Promise<T>): Promise<T> {
  if (!CPU_PROFILE_DIR) return measure();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await measure();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(CPU_PROFILE_DIR, { recursive: true });
    writeFileSync(join(CPU_PROFILE_DIR, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}

/**
 * autocannon in a child process (its own event loop, so it does not queue behind the
 * service; autocannon returns raw histograms when run inside a worker thread), cycling
 * through the payloads.
 */
async function load(url: string, payloads: Payload[]): Promise<LoadResult> {
  // Serialising and writing thousands of payloads is the bench's work, not the server's: done
  // before the CPU measurement starts.
  const dir = mkdtempSync(join(tmpdir(), 'tessera-bench-'));
  const file = join(dir, 'payloads.json');
  writeFileSync(file, JSON.stringify(payloads));
  // Where latency tails come from: garbage-collection pauses and how late the event loop ran
  // its timers (a 10 ms sampling timer; any synchronous stretch shows up as delay).
  const gcPauses: number[] = [];
  const gcObserver = new PerformanceObserver((list) => gcPauses.push(...list.getEntries().map((e) => e.duration)));
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  try {
    gcObserver.observe({ entryTypes: ['gc'] });
    loopDelay.enable();
    const cpuBefore = process.cpuUsage();
    const result = await runAutocannon(url, file);
    const cpu = process.cpuUsage(cpuBefore);
    return {
      ...result,
      cpuMsPerRequest: (cpu.user + cpu.system) / 1000 / Math.max(1, result.requests),
      gc: { pauses: gcPauses.length, totalMs: gcPauses.reduce((a, b) => a + b, 0), longestMs: Math.max(0, ...gcPauses) },
      loopDelay: { p99Ms: loopDelay.percentile(99) / 1e6, maxMs: loopDelay.max / 1e6 },
    };
  } finally {
    gcObserver.disconnect();
    loopDelay.disable();
    rmSync(dir, { recursive: true, force: true });
  }
}

type AutocannonResult = Omit<LoadResult, 'cpuMsPerRequest' | 'gc' | 'loopDelay'>;

async function runAutocannon(url: string, file: string): Promise<AutocannonResult> {
  const code = `
    const autocannon = require('autocannon');
    const payloads = JSON.parse(require('node:fs').readFileSync(process.argv[1], 'utf8'));
    const [url, connections, duration] = process.argv.slice(2);
    let next = 0;
    autocannon({
      url, connections: Number(connections), duration: Number(duration), method: 'POST',
      requests: [{ setupRequest: (req) => {
        const p = payloads[next++ % payloads.length];
        return { ...req, method: 'POST', body: p.body, headers: { ...req.headers, ...p.headers } };
      } }],
    }, (err, r) => {
      if (err) { console.error(err); process.exit(1); }
      process.stdout.write(JSON.stringify({
        rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99,
        non2xx: r.non2xx, errors: r.errors + r.timeouts, requests: r.requests.total,
      }));
    });
  `;
  const output = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, ['-e', code, file, url, String(CONNECTIONS), String(DURATION_S)], { maxBuffer: 1 << 20 },
      (err, stdout, stderr) => (err ? reject(new Error(`autocannon failed: ${stderr || err.message}`)) : resolve(stdout)));
  });
  return JSON.parse(output) as AutocannonResult;
}

async function echoPeer(payloads: Payload[]): Promise<LoadResult> {
  const app = Fastify({ logger: false });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, JSON.parse(body as string)));
  app.post('/', async (request) => request.body);
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    return await load(`${url}/`, payloads);
  } finally {
    await app.close();
  }
}

async function runEngine(engine: Engine, buildPayloads: (publicKey: string) => ReturnType<typeof buildVisits>) {
  const database = await createTestDatabase(engine);
  // The clock starts at the seeded "now", and moves with wall time from there.
  const offset = SEED_NOW - Date.now();
  const service = await createService({ ...database.config, port: 0, logLevel: 'silent', trustProxy: true, clock: () => Date.now() + offset });
  try {
    const key = await findApiKeyByToken(service.ctx.store, service.bootstrap.publicKey);
    if (!key) throw new Error('bootstrap public key not found');
    await setApiKeyRateLimit(service.ctx.store, key.id, 1_000_000_000);
    console.log(`\n${engine}: seeding ${EVENTS.toLocaleString('en')} events`);
    await seedEvents(service, { events: EVENTS, visitors: VISITORS });
    // A database that grew to this size would have fresh planner statistics by now (the
    // service's job on SQLite, autovacuum on PostgreSQL); the seeding outran both.
    if (engine === 'sqlite') {
      // Timed: the service's statistics job runs this on the one connection ingestion uses.
      const started = performance.now();
      await refreshPlannerStatistics(service.ctx.store);
      const first = performance.now() - started;
      await refreshPlannerStatistics(service.ctx.store);
      const again = performance.now() - started - first;
      console.log(`  planner statistics job: ${first.toFixed(0)} ms after seeding, ${again.toFixed(0)} ms when run again`);
    } else await sql`ANALYZE`.execute(kyselyOf(service.ctx.store));
    const base = await service.listen();
    const endpoint = `${base}/?ci=js/${AGENT_VERSION}`;

    // Warm-up: every browser's first visit, to create its visitor and get its token.
    const { first, later } = buildPayloads(service.bootstrap.publicKey);
    // By browser index: browsers without a (non-private) visit are absent from `first`.
    const tokens = new Map<number, string>();
    for (let i = 0; i < first.length; i += 25) {
      await Promise.all(first.slice(i, i + 25).map(async ({ browser, payload: p }) => {
        const res = await fetch(endpoint, { method: 'POST', headers: p.headers, body: p.body });
        const answer = (await res.json()) as IdentifyResponse;
        tokens.set(browser, answer.token);
      }));
    }
    const returning = later.map(({ browser, payload }) => {
      const token = tokens.get(browser);
      if (!token) return payload;
      const request = JSON.parse(payload.body) as IdentifyRequest;
      return { ...payload, body: JSON.stringify({ ...request, token }) };
    });
    console.log(`  ${first.length.toLocaleString('en')} browsers warmed up; measuring with ${returning.length.toLocaleString('en')} returning visits`);
    const result = await profiled(`service-${engine}`, () => load(endpoint, returning));
    const stored = await kyselyOf(service.ctx.store).selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { result, storedEvents: Number(stored.n), payloads: returning };
  } finally {
    await service.close();
    await database.drop();
  }
}

const ms = (n: number) => `${n.toFixed(1)} ms`;
const rate = (n: number) => Math.round(n).toLocaleString('en');
const cpu = (n: number) => `${n.toFixed(3)} ms`;
const pauses = (r: LoadResult) =>
  `${r.gc.pauses.toLocaleString('en')} GC pauses (${ms(r.gc.totalMs)} in all, longest ${ms(r.gc.longestMs)}), event-loop delay p99 ${ms(r.loopDelay.p99Ms)}, max ${ms(r.loopDelay.maxMs)}`;

async function main(): Promise<void> {
  const rows: string[] = [];
  const notes: string[] = [];
  const figures: Record<string, unknown> = {};
  let echo: LoadResult | undefined;
  for (const engine of ENGINES) {
    const { result, storedEvents, payloads } = await runEngine(engine, buildVisits);
    // The echo peer gets the same payloads and the same load, right after.
    echo ??= await echoPeer(payloads);
    const share = result.rps / echo.rps;
    console.log(`  ${engine}: ${rate(result.rps)} identifications/s, p50 ${ms(result.p50)}, p99 ${ms(result.p99)}, ` +
      `${cpu(result.cpuMsPerRequest)} CPU per request, ${result.non2xx} non-2xx, ${result.errors} errors; ` +
      `${storedEvents.toLocaleString('en')} events stored after the run`);
    notes.push(`${engine}: ${pauses(result)}`);
    rows.push(`| Tessera ingestion, ${engine} | ${rate(result.rps)} | ${ms(result.p50)} | ${ms(result.p99)} | ${cpu(result.cpuMsPerRequest)} | ${(share * 100).toFixed(0)}% | ${result.non2xx + result.errors} |`);
    figures[engine] = { ...result, storedEvents, shareOfEcho: share };
  }
  if (echo) {
    rows.push(`| peer: bare Fastify JSON echo | ${rate(echo.rps)} | ${ms(echo.p50)} | ${ms(echo.p99)} | ${cpu(echo.cpuMsPerRequest)} | 100% | ${echo.non2xx + echo.errors} |`);
    figures.echo = echo;
    notes.push(`echo: ${pauses(echo)}`);
  }
  const markdown = [
    `${EVENTS.toLocaleString('en')} stored events (${VISITORS.toLocaleString('en')} visitors) before the run; ${BROWSERS.toLocaleString('en')} simulated browsers ` +
      `warmed up with their first visit, then their later visits (token attached, with drift) sent by autocannon: ${CONNECTIONS} connections, ${DURATION_S} s, over loopback. ` +
      `Target: at least 25% of the echo's rate on SQLite, p99 < 25 ms. Load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(', ')} on ${availableParallelism()} cores.`,
    '',
    '| Server | Requests/s | p50 | p99 | Server CPU per request | Share of echo (rate) | Errors |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    `Server process during the load: ${notes.join('; ')}.`,
  ].join('\n');
  console.log(`\n${markdown}\n`);
  writeBenchOutput({ name: 'service-throughput', title: 'Service throughput (ingestion)', markdown, figures });
}

await main();
