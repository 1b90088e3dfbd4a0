/**
 * `tessera start --workers 2` as a user runs it (`node bin/tessera.js`, compiled by `npm run
 * build:node`): two worker processes behind one port, on one SQLite file or one PostgreSQL
 * database. Every answered identification is stored exactly once, a key's rate limit holds
 * across the workers, and a killed worker is replaced while the other keeps answering.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { WORKER_OLD_SPACE_MB, workerExecArgv } from '../../src/service/cli/cluster.js';
import { kyselyOf, openStore } from '../../src/service/store/index.js';
import { identifyRequest, sampleSignals } from '../helpers/identify-request.js';
import { createRedisPrefix, createTestDatabase, ENGINES, REDIS_TEST_URL, type TestDatabase } from '../helpers/test-service.js';

const BIN = join(import.meta.dirname, '../../bin/tessera.js');
const databases: TestDatabase[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
  for (const cleanup of cleanups) await cleanup();
});

/** A pino line or the start report: free-form JSON. */
type Json = Record<string, any>;

interface RunningService {
  child: ChildProcess;
  report: Json;
  /** Every JSON log line so far (the primary's and the workers'). */
  logs: Json[];
  /** Resolves with the first log line (already seen or to come) that matches. */
  waitForLog(match: (line: Json) => boolean, timeoutMs?: number): Promise<Json>;
  /** The pid of the worker now in each slot, from the primary's "worker listening" lines. */
  workerPids(): Map<number, number>;
  /** SIGTERM to the primary; resolves with its exit code. */
  stop(): Promise<number | null>;
}

function databaseArgs(database: TestDatabase): string[] {
  return database.config.databaseUrl ? ['--database-url', database.config.databaseUrl] : ['--data-dir', database.config.dataDir!];
}

async function startService(args: string[]): Promise<RunningService> {
  const child = spawn(process.execPath, [BIN, 'start', '--port', '0', '--json', '--log-level', 'info', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const logs: Json[] = [];
  const waiters: { match: (line: Json) => boolean; resolve: (line: Json) => void }[] = [];
  const report = await new Promise<Json>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (text) => {
      const line = JSON.parse(text) as Json;
      if (line.urls) return resolve(line);
      logs.push(line);
      for (const waiter of waiters.filter((w) => w.match(line))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    });
    child.on('close', () => reject(new Error(`tessera start exited early: ${stderr}`)));
  });
  return {
    child,
    report,
    logs,
    waitForLog(match, timeoutMs = 15_000) {
      const seen = logs.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no such log line within ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
        waiters.push({ match, resolve: (line) => (clearTimeout(timer), resolve(line)) });
      });
    },
    workerPids() {
      const pids = new Map<number, number>();
      for (const line of logs) if (line.msg === 'worker listening') pids.set(line.worker as number, line.workerPid as number);
      return pids;
    },
    stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** A browser of its own: signals no other request of the test shares. */
function browserRequest(publicKey: string, n: number) {
  return identifyRequest(publicKey, {
    signals: sampleSignals({
      canvas: { winding: true, geometry: `g${n}`, text: `t${n}` },
      audio: `124.${n}`,
      fonts: ['Arial', `Font ${n}`],
      webgl: { vendor: 'Google Inc.', renderer: `Renderer ${n}`, params: `p${n}`, extensions: `e${n}` },
    }),
  });
}

/**
 * POST / on a connection of its own (no keep-alive: each request is a new connection, which the
 * primary hands to the workers in turn). Resolves with the status and the parsed answer.
 */
function post(url: string, body: unknown): Promise<{ status: number; json: Json }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/?ci=js/4.0.0`, { method: 'POST', agent: false, headers: { 'Content-Type': 'text/plain' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(Buffer.concat(chunks).toString()) as Json }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** Runs `task(0..count-1)` with at most `concurrency` at a time. */
async function inParallel<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}

/** Requests each worker process answered (its "request completed" log lines), by pid. */
function answeredBy(service: RunningService): Map<number, number> {
  const counts = new Map<number, number>();
  for (const line of service.logs) if (line.msg === 'request completed') counts.set(line.pid as number, (counts.get(line.pid as number) ?? 0) + 1);
  return counts;
}

/** Waits until the workers logged `count` answers in all (their log lines trail the answers). */
async function answersLogged(service: RunningService, count: number): Promise<Map<number, number>> {
  const total = () => [...answeredBy(service).values()].reduce((a, b) => a + b, 0);
  for (const deadline = Date.now() + 5000; total() < count && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 20));
  return answeredBy(service);
}

describe('tessera start --workers 2', () => {
  it.each(ENGINES)('%s: every answered identification is stored exactly once, from both workers at once', async (engine) => {
    const database = await createTestDatabase(engine);
    databases.push(database);
    const service = await startService(['--workers', '2', ...databaseArgs(database)]);
    const IDENTIFICATIONS = 300;
    let answers: { status: number; json: Json }[];
    try {
      expect(service.report).toMatchObject({ engine, workers: 2, first_start: true });
      const { url, keys } = service.report;
      answers = await inParallel(IDENTIFICATIONS, 30, (i) => post(url, browserRequest(keys.public, i)));
      // Both workers stored events concurrently (each answered a share of the requests).
      await service.waitForLog((l) => l.msg === 'worker listening' && l.worker === 0);
      await service.waitForLog((l) => l.msg === 'worker listening' && l.worker === 1);
      const pids = [...service.workerPids().values()];
      expect(pids).toHaveLength(2);
      const answered = await answersLogged(service, IDENTIFICATIONS);
      for (const pid of pids) expect(answered.get(pid) ?? 0).toBeGreaterThan(IDENTIFICATIONS / 5);
      // The workers run with a larger old generation (cluster.ts WORKER_OLD_SPACE_MB).
      for (const pid of pids) expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')).toContain(`--initial-old-space-size=${WORKER_OLD_SPACE_MB}`);
    } finally {
      expect(await service.stop()).toBe(0);
    }
    // No SQLITE_BUSY (or anything else) reached a client.
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    const answered = answers.map((a) => a.json.event_id as string);
    expect(new Set(answered).size).toBe(IDENTIFICATIONS);

    const store = openStore({ dataDir: database.config.dataDir ?? '', databaseUrl: database.config.databaseUrl });
    try {
      const stored = await kyselyOf(store).selectFrom('events').select('event_id').execute();
      expect(stored.map((r) => r.event_id).sort()).toEqual([...answered].sort());
    } finally {
      await store.destroy();
    }
  }, 30_000);

  it.each(['the primary', 'Redis'])("holds a key's rate limit across both workers (counted once, in %s)", async (counter) => {
    const database = await createTestDatabase('sqlite');
    databases.push(database);
    const redis = counter === 'Redis' ? createRedisPrefix() : undefined;
    cleanups.push(async () => redis?.cleanup());
    const LIMIT = 20;
    const created = spawnSync(process.execPath, [BIN, 'keys', 'create', '--type', 'public', '--name', 'Limited', '--rate-limit', String(LIMIT), '--json', ...databaseArgs(database)]);
    expect(created.status).toBe(0);
    const limitedKey = (JSON.parse(created.stdout.toString()) as Json).data.token as string;
    const redisArgs = redis ? ['--redis-url', REDIS_TEST_URL, '--redis-key-prefix', redis.prefix] : [];
    const service = await startService(['--workers', '2', ...databaseArgs(database), ...redisArgs]);
    try {
      const { url } = service.report;
      // Limits are per second, in a window that starts with the key's first request: a burst
      // that ends within 900 ms lies in one window. On a busy machine a burst may take longer,
      // then the next one (a second later, in a fresh window) is measured instead.
      let statuses: number[] | undefined;
      for (let attempt = 0; attempt < 3 && !statuses; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 1100));
        const before = answeredBy(service);
        const beforeTotal = [...before.values()].reduce((a, b) => a + b, 0);
        const started = performance.now();
        const burst = await Promise.all(Array.from({ length: 5 * LIMIT }, (_, i) => post(url, browserRequest(limitedKey, attempt * 1000 + i))));
        if (performance.now() - started > 900) continue;
        statuses = burst.map((r) => r.status);
        // Both workers took part in the burst.
        const after = await answersLogged(service, beforeTotal + 5 * LIMIT);
        for (const pid of service.workerPids().values()) expect((after.get(pid) ?? 0) - (before.get(pid) ?? 0)).toBeGreaterThan(LIMIT / 2);
      }
      expect(statuses, 'no burst finished within 900 ms').toBeDefined();
      expect(statuses!.filter((s) => s === 200)).toHaveLength(LIMIT);
      expect(statuses!.filter((s) => s === 429)).toHaveLength(4 * LIMIT);
    } finally {
      expect(await service.stop()).toBe(0);
    }
  }, 30_000);

  it('replaces a killed worker (at once, then after a delay if the replacement dies young) while the other keeps answering', async () => {
    const database = await createTestDatabase('sqlite');
    databases.push(database);
    const service = await startService(['--workers', '2', ...databaseArgs(database)]);
    try {
      const { url, keys } = service.report;
      const isAlive = (pid: number) => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      // The primary's log lines may come after its report (another stream on the same pipe).
      await service.waitForLog((l) => l.msg === 'worker listening' && l.worker === 0);
      await service.waitForLog((l) => l.msg === 'worker listening' && l.worker === 1);
      // Slot 0 is the worker that runs the background jobs: its replacement takes them over.
      const first = service.workerPids().get(0)!;
      const other = service.workerPids().get(1)!;
      process.kill(first, 'SIGKILL');
      const died = await service.waitForLog((l) => l.msg === 'worker died; starting a replacement' && l.workerPid === first);
      expect(died).toMatchObject({ worker: 0, signal: 'SIGKILL', restartInMs: 0 });
      // Meanwhile the other worker answers every request.
      const during = await inParallel(10, 2, (i) => post(url, browserRequest(keys.public, i)));
      expect(during.map((r) => r.status)).toEqual(Array(10).fill(200));
      const replaced = await service.waitForLog((l) => l.msg === 'worker listening' && l.worker === 0 && l.workerPid !== first);
      expect(replaced.jobs).toBe(true);
      expect(isAlive(first)).toBe(false);

      // The replacement dies young too: the next one waits (a crash loop does not spin).
      process.kill(replaced.workerPid as number, 'SIGKILL');
      const diedAgain = await service.waitForLog((l) => l.msg === 'worker died; starting a replacement' && l.workerPid === replaced.workerPid);
      expect(diedAgain.restartInMs).toBe(1000);
      const third = await service.waitForLog((l) => l.msg === 'worker listening' && l.worker === 0 && ![first, replaced.workerPid].includes(l.workerPid));

      // Both slots serve again: the new worker answers its share of new connections.
      const before = answeredBy(service);
      const beforeTotal = [...before.values()].reduce((a, b) => a + b, 0);
      const after = await inParallel(20, 2, (i) => post(url, browserRequest(keys.public, 100 + i)));
      expect(after.map((r) => r.status)).toEqual(Array(20).fill(200));
      const logged = await answersLogged(service, beforeTotal + 20);
      expect((logged.get(third.workerPid as number) ?? 0) - (before.get(third.workerPid as number) ?? 0)).toBeGreaterThan(0);
      expect(service.workerPids()).toEqual(new Map([[0, third.workerPid], [1, other]]));
    } finally {
      expect(await service.stop()).toBe(0);
    }
  }, 30_000);

  it('refuses --workers 0', () => {
    const refused = spawnSync(process.execPath, [BIN, 'start', '--workers', '0', '--port', '0']);
    expect(refused.status).toBe(1);
    expect(refused.stderr.toString()).toContain('--workers must be at least 1');
  });

  it('refuses more than 4 workers per core, before it forks any', () => {
    const tooMany = 4 * availableParallelism() + 1;
    const dataDir = mkdtempSync(join(tmpdir(), 'tessera-workers-'));
    try {
      const refused = spawnSync(process.execPath, [BIN, 'start', '--workers', String(tooMany), '--port', '0', '--data-dir', dataDir]);
      expect(refused.status).toBe(1);
      expect(refused.stderr.toString()).toContain(`--workers ${tooMany} is more than 4 per CPU core (this machine has ${availableParallelism()}, so at most ${tooMany - 1})`);
      // Refused before the primary prepared anything: no database was created.
      expect(readdirSync(dataDir)).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('--workers 1 runs the service in the one process, as before', async () => {
    const database = await createTestDatabase('sqlite');
    databases.push(database);
    const service = await startService(['--workers', '1', ...databaseArgs(database)]);
    try {
      expect(service.report).toMatchObject({ workers: 1, first_start: true });
      const listening = await service.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('Server listening'));
      expect(listening.pid).toBe(service.child.pid);
      expect(service.logs.some((l) => l.role === 'primary')).toBe(false);
    } finally {
      expect(await service.stop()).toBe(0);
    }
  }, 30_000);
});

describe('workerExecArgv', () => {
  it("adds the workers' old-generation size to the Node options, unless they set one", () => {
    expect(workerExecArgv(['--enable-source-maps'])).toEqual(['--enable-source-maps', `--initial-old-space-size=${WORKER_OLD_SPACE_MB}`]);
    expect(workerExecArgv(['--initial-old-space-size=512'])).toEqual(['--initial-old-space-size=512']);
    expect(workerExecArgv(['--initial_old_space_size=64'])).toEqual(['--initial_old_space_size=64']);
  });
});
