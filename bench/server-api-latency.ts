/**
 * Server API latency with 1,000,000 stored events across 100,000 visitors, on SQLite and on
 * PostgreSQL: p50/p99 over HTTP of v4 search by visitor_id (7-day window), v4 get-event and
 * the v3 visitor lookup, next to a peer measured in the same run on the same database: a bare
 * Fastify route doing one primary-key SELECT (no auth, no rate limit, no mapping).
 *
 *   npm run bench:server-api                     # both engines
 *   BENCH_ENGINES=sqlite BENCH_EVENTS=200000 npm run bench:server-api
 *
 * Load comes from a closed-loop generator in a worker thread, so it does not share the
 * service's event loop: by default one connection in a tight loop (latency without queueing
 * behind other requests); BENCH_CONNECTIONS=4 measures under concurrency. Target (issue 4):
 * p99 under 20 ms on both engines.
 *
 * Then, per engine, ingestion p50 (`POST /`, sequential identifications) alone and while 4
 * connections run worst-case CIDR searches (a 30-day window, a range no event is in, so each
 * request reads its whole scan budget): searches are bounded so they must not stall ingestion.
 */
import { Worker } from 'node:worker_threads';
import Fastify from 'fastify';
import { createService } from '../src/service/index.js';
import { setApiKeyRateLimit } from '../src/service/store/api-keys.js';
import { kyselyOf } from '../src/service/store/index.js';
import { createTestDatabase, type Engine } from '../test/helpers/test-service.js';
import { identifyRequest, postIdentify } from '../test/helpers/identify-request.js';
import { writeBenchOutput } from './bench-output.js';
import { DAY, SEED_NOW as NOW, seedEvents, settleAfterSeeding } from './seed-events.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const VISITORS = Number(process.env.BENCH_VISITORS ?? 100_000);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 9);
const ROUNDS = 3;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 1);
const ENGINES = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',') as Engine[];

interface Latency {
  p50: number;
  p99: number;
  rps: number;
  errors: number;
}

interface Samples {
  latencies: number[];
  errors: number;
  seconds: number;
}

/**
 * A closed-loop load generator in a worker thread (its own event loop, so it does not queue
 * behind the service): `connections` keep-alive connections, each sending the next request as
 * soon as the previous answer arrived, to a random path of `paths`. Latencies in ms.
 */
function load(url: string, paths: string[], headers: Record<string, string>, seconds: number, connections = CONNECTIONS): Promise<Samples> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const http = require('node:http');
    const { url, paths, headers, seconds, connections } = workerData;
    const target = new URL(url);
    const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
    const latencies = [];
    let errors = 0;
    const deadline = performance.now() + seconds * 1000;
    const once = () => new Promise((resolve) => {
      const path = paths[Math.floor(Math.random() * paths.length)];
      const started = performance.now();
      const req = http.request({ host: target.hostname, port: target.port, path, headers, agent }, (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(performance.now() - started);
          if (res.statusCode !== 200) errors++;
          resolve();
        });
      });
      req.on('error', () => { errors++; resolve(); });
      req.end();
    });
    const connection = async () => { while (performance.now() < deadline) await once(); };
    Promise.all(Array.from({ length: connections }, connection)).then(() => {
      agent.destroy();
      parentPort.postMessage({ latencies, errors, seconds });
    });
  `;
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData: { url, paths, headers, seconds, connections } });
    worker.once('message', (m: Samples) => {
      resolve(m);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

function summarise(samples: Samples[]): Latency {
  const all = samples.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const q = (p: number) => all[Math.min(all.length - 1, Math.floor(p * all.length))] ?? NaN;
  const seconds = samples.reduce((sum, s) => sum + s.seconds, 0);
  return { p50: q(0.5), p99: q(0.99), rps: all.length / seconds, errors: samples.reduce((sum, s) => sum + s.errors, 0) };
}

const pick = <T>(list: T[], count: number): T[] => Array.from({ length: count }, () => list[Math.floor(Math.random() * list.length)]!);

async function runEngine(engine: Engine): Promise<Record<string, Latency>> {
  console.log(`\n${engine}: ${EVENTS.toLocaleString('en')} events, ${VISITORS.toLocaleString('en')} visitors`);
  const database = await createTestDatabase(engine);
  const service = await createService({ ...database.config, port: 0, logLevel: 'silent', clock: () => NOW });
  const peer = Fastify();
  try {
    const { visitors, eventIds } = await seedEvents(service, { events: EVENTS, visitors: VISITORS });
    const db = kyselyOf(service.ctx.store);
    // Planner statistics as a running installation has them: SQLite's from the service's own
    // background job, PostgreSQL's from autovacuum (settleAfterSeeding, with the checkpoint).
    if (engine === 'sqlite') await service.jobs.runOnce();
    await settleAfterSeeding(service);

    const secretKey = service.bootstrap.secretKey!; // a fresh database: this start created it
    await setApiKeyRateLimit(service.ctx.store, service.bootstrap.secretKeyId, 1_000_000);
    const url = await service.listen();

    peer.get<{ Params: { id: string } }>('/peer/:id', async (request) => {
      const row = await db.selectFrom('events').select('payload').where('event_id', '=', request.params.id).executeTakeFirst();
      return row?.payload ?? '';
    });
    const peerUrl = await peer.listen({ port: 0, host: '127.0.0.1' });

    const v4 = { Authorization: `Bearer ${secretKey}` };
    const v3 = { 'Auth-API-Key': secretKey };
    const start = NOW - 7 * DAY;
    const scenarios: [string, string, string[], Record<string, string>][] = [
      ['v4 search by visitor_id, 7-day window', url, pick(visitors, 20_000).map((v) => `/v4/events?visitor_id=${v}&start=${start}&end=${NOW}`), v4],
      ['v4 get event', url, pick(eventIds, 20_000).map((id) => `/v4/events/${id}`), v4],
      ['v3 visitor lookup (GET /visitors/:id)', url, pick(visitors, 20_000).map((v) => `/visitors/${v}`), v3],
      ['peer: bare Fastify + primary-key SELECT', peerUrl, pick(eventIds, 20_000).map((id) => `/peer/${id}`), {}],
    ];
    // Scenarios take turns in rounds, so load from other processes on this machine hits
    // Tessera and the peer alike.
    const samples = new Map<string, Samples[]>(scenarios.map(([name]) => [name, []]));
    for (const [, base, paths, headers] of scenarios) await load(base, paths, headers, 1); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, base, paths, headers] of scenarios) {
        samples.get(name)!.push(await load(base, paths, headers, DURATION_S / ROUNDS));
      }
    }
    const results: Record<string, Latency> = {};
    for (const [name] of scenarios) {
      const r = (results[name] = summarise(samples.get(name)!));
      console.log(`  ${name.padEnd(42)} p50 ${r.p50.toFixed(2).padStart(6)} ms  p99 ${r.p99.toFixed(2).padStart(6)} ms  ${Math.round(r.rps).toString().padStart(6)} req/s${r.errors ? `  errors ${r.errors}` : ''}`);
    }

    // Ingestion alone, then next to 4 connections of worst-case CIDR searches.
    const cidr = `/v4/events?ip_address=192.0.2.0/24&start=${NOW - 30 * DAY}&end=${NOW}&limit=100`;
    const ingest = async (seconds: number): Promise<Samples> => {
      const latencies: number[] = [];
      let errors = 0;
      const deadline = performance.now() + seconds * 1000;
      while (performance.now() < deadline) {
        const started = performance.now();
        const res = await postIdentify(url, identifyRequest(service.bootstrap.publicKey));
        latencies.push(performance.now() - started);
        if (res.status !== 200) errors++;
      }
      return { latencies, errors, seconds };
    };
    const alone = summarise([await ingest(DURATION_S / ROUNDS)]);
    const [busy, searches] = await Promise.all([ingest(DURATION_S / ROUNDS), load(url, [cidr], v4, DURATION_S / ROUNDS, 4)]);
    const during = summarise([busy]);
    const searched = summarise([searches]);
    results['ingestion alone'] = alone;
    results['ingestion during 4 CIDR searches'] = during;
    results['worst-case CIDR search (4 connections)'] = searched;
    for (const [name, r] of [['ingestion alone', alone], ['ingestion during 4 CIDR searches', during], ['worst-case CIDR search (4 conn.)', searched]] as const) {
      console.log(`  ${name.padEnd(42)} p50 ${r.p50.toFixed(2).padStart(6)} ms  p99 ${r.p99.toFixed(2).padStart(6)} ms  ${Math.round(r.rps).toString().padStart(6)} req/s${r.errors ? `  errors ${r.errors}` : ''}`);
    }
    return results;
  } finally {
    await peer.close();
    await service.close();
    await database.drop();
  }
}

async function main(): Promise<void> {
  console.log(`Server API latency: ${CONNECTIONS} connections, ${DURATION_S} s per scenario, Node ${process.version}`);
  const all: Record<string, Record<string, Latency>> = {};
  for (const engine of ENGINES) all[engine] = await runEngine(engine);

  const names = Object.keys(Object.values(all)[0] ?? {});
  const header = `| Scenario | ${ENGINES.map((e) => `${e} p50 / p99 (ms) | ${e} req/s`).join(' | ')} |`;
  const rule = `|---|${ENGINES.map(() => '---|---').join('|')}|`;
  const rows = names.map(
    (name) => `| ${name} | ${ENGINES.map((e) => `${all[e]![name]!.p50.toFixed(2)} / ${all[e]![name]!.p99.toFixed(2)} | ${Math.round(all[e]![name]!.rps)}`).join(' | ')} |`,
  );
  const markdown = [
    `${EVENTS.toLocaleString('en')} events across ${VISITORS.toLocaleString('en')} visitors (30 days), ${CONNECTIONS} concurrent connections, ${DURATION_S} s per scenario, over HTTP on one machine. Target: p99 < 20 ms.`,
    '',
    header,
    rule,
    ...rows,
  ].join('\n');
  console.log(`\n${markdown}\n`);
  const file = writeBenchOutput({ name: 'server-api-latency', title: 'Server API latency', markdown, figures: all });
  console.log(`written ${file}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
