/**
 * What another process's commits cost a process reading the same SQLite file, with the file
 * memory-mapped (how one service process reads it) and without (how each worker of `tessera
 * start --workers N` reads it, store/database.ts). The reader runs the candidate read of an
 * identification (`findCandidates`, 12 blocking keys) at a steady 300 per second, alone and
 * while a second process commits small transactions (10 key rows) at the rate of another
 * worker's group commits. Reported: the reader process's CPU time (user + system) per read.
 *
 *   npx tsx --import ./bench/compiled-code.mjs bench/sqlite-shared-file.ts
 *   BENCH_ROUNDS=3 BENCH_COMMITS_PER_S=250 npx tsx --import ./bench/compiled-code.mjs bench/sqlite-shared-file.ts
 *
 * Why it matters: when another connection has committed, SQLite drops its page cache and, with a
 * memory map, unmaps the whole file before the next read; the pages read again are mapped and
 * faulted in anew.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { sql } from 'kysely';
import { SQLITE_FILE_NAME } from '../src/service/store/database.js';
import { kyselyOf, openStore } from '../src/service/store/index.js';
import { findCandidates } from '../src/service/store/visitors.js';
import { createTestSqliteDatabase } from '../test/helpers/test-service.js';
import { writeBenchOutput } from './bench-output.js';

const VISITORS = 50_000;
/** Key kinds by how many distinct values they take: a few crowded, most nearly unique. */
const KEY_SPREADS = [5, 50, 500, 5_000, 50_000, 50_000, 5, 50, 500, 5_000, 50_000, 50_000];
const READS_PER_S = 300;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const COMMITS_PER_S = Number(process.env.BENCH_COMMITS_PER_S ?? 50);
const WORKSPACE = 'ws-bench';

const randomKey = (kind: number) => `k${kind}:${Math.floor(Math.random() * KEY_SPREADS[kind]!)}`;

// The other process: commits of 10 key rows, COMMITS_PER_S a second (CommonJS, evaluated in a child).
const WRITER_SOURCE = `
const SQLite = require(process.env.DRIVER);
const db = new SQLite(process.env.FILE);
db.pragma('busy_timeout = 5000');
const insert = db.prepare('insert or replace into visitor_keys (workspace_id, key, visitor_id, last_seen_at) values (?, ?, ?, ?)');
const spreads = JSON.parse(process.env.SPREADS);
let n = 0;
const commit = db.transaction(() => {
  for (let k = 0; k < 10; k++) insert.run(process.env.WORKSPACE, 'k' + k + ':' + Math.floor(Math.random() * spreads[k]), 'writer-' + n++, Date.now());
});
setInterval(commit, 1000 / Number(process.env.RATE));
`;

async function seed(dataDir: string): Promise<void> {
  const store = openStore({ dataDir });
  try {
    await store.migrate();
    const db = kyselyOf(store);
    const now = Date.now();
    for (let first = 0; first < VISITORS; first += 1000) {
      await store.transaction(async (trx) => {
        for (let v = first; v < first + 1000; v++) {
          const rows = KEY_SPREADS.map((_, kind) => ({ workspace_id: WORKSPACE, key: randomKey(kind), visitor_id: `visitor-${v}`, last_seen_at: now - Math.floor(Math.random() * 1e9) }));
          await kyselyOf(trx).insertInto('visitor_keys').values(rows).onConflict((oc) => oc.doNothing()).execute();
        }
      });
    }
    await sql`ANALYZE`.execute(db);
  } finally {
    await store.destroy();
  }
}

/** CPU time of this process per candidate read, µs, over SECONDS at READS_PER_S. */
async function measure(dataDir: string, sharedWithWriters: boolean): Promise<number> {
  const store = openStore({ dataDir, sharedWithWriters });
  try {
    const keys = () => KEY_SPREADS.map((_, kind) => randomKey(kind));
    await findCandidates(store, WORKSPACE, keys());
    const reads: Promise<unknown>[] = [];
    const before = process.cpuUsage();
    const started = performance.now();
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (performance.now() - started >= SECONDS * 1000) {
          clearInterval(timer);
          resolve();
          return;
        }
        reads.push(findCandidates(store, WORKSPACE, keys()));
      }, 1000 / READS_PER_S);
    });
    await Promise.all(reads);
    const used = process.cpuUsage(before);
    return (used.user + used.system) / reads.length;
  } finally {
    await store.destroy();
  }
}

async function main(): Promise<void> {
  const database = createTestSqliteDatabase();
  const dataDir = database.config.dataDir!;
  try {
    console.error(`seeding ${VISITORS.toLocaleString('en')} visitors' keys`);
    await seed(dataDir);
    const results: Record<string, number[]> = {};
    const record = (name: string, value: number) => (results[name] ??= []).push(value);
    for (let round = 0; round < ROUNDS; round++) {
      for (const mapped of [true, false]) {
        const label = mapped ? 'memory-mapped' : 'read';
        record(`${label}, alone`, await measure(dataDir, !mapped));
        const writer = spawn(process.execPath, ['-e', WRITER_SOURCE], {
          stdio: 'inherit',
          env: { ...process.env, DRIVER: createRequire(import.meta.url).resolve('better-sqlite3'), FILE: join(dataDir, SQLITE_FILE_NAME), RATE: String(COMMITS_PER_S), SPREADS: JSON.stringify(KEY_SPREADS), WORKSPACE },
        });
        try {
          record(`${label}, another process committing`, await measure(dataDir, !mapped));
        } finally {
          writer.kill();
        }
      }
    }
    const rows = Object.entries(results).map(([name, values]) => `| ${name} | ${values.map((v) => `${Math.round(v)} µs`).join(', ')} |`);
    const markdown = [
      `CPU time of the reading process per candidate read (12 keys, ${READS_PER_S}/s for ${SECONDS} s, ${VISITORS.toLocaleString('en')} visitors' keys), alone and while another process commits ${COMMITS_PER_S} times a second; one figure per round.`,
      '',
      '| reader | CPU per read |',
      '| --- | --- |',
      ...rows,
    ].join('\n');
    console.log(markdown);
    writeBenchOutput({ name: 'sqlite-shared-file', title: 'SQLite file shared with another writing process', markdown, figures: results });
  } finally {
    await database.drop();
  }
}

await main();
