/**
 * The WAL checkpoint worker (store/wal-checkpointer.ts) keeps the log from growing under
 * steady writes: passive checkpoints alone never let it start over while commits keep coming,
 * so past its threshold the worker restarts it, and the file stays near that size.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextCallback, setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { sql } from 'kysely';
import { SQLITE_FILE_NAME } from '../../src/service/store/database.js';
import { kyselyOf, openStore } from '../../src/service/store/index.js';
import { startWalCheckpointer } from '../../src/service/store/wal-checkpointer.js';

const PAGE = 4096;
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A WAL database with the worker running and no backstop: only the worker checkpoints. */
function walDatabase(restartPages: number | undefined) {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-wal-'));
  dirs.push(dir);
  const file = join(dir, 'db.sqlite');
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('create table t (id integer primary key, body blob)');
  const insert = db.prepare('insert into t (body) values (?)');
  const checkpointer = startWalCheckpointer(file, { restartPages });
  const body = Buffer.alloc(3 * PAGE, 7);
  return {
    file,
    walSize: () => statSync(`${file}-wal`).size,
    /** Commits `commits` small transactions as a busy service does; returns the largest log seen. */
    async write(commits: number, pauseMs = 10) {
      let largest = 0;
      for (let i = 0; i < commits; i++) {
        insert.run(body);
        largest = Math.max(largest, statSync(`${file}-wal`).size);
        // Let the worker's ticks in now and then, as the service's other work does.
        if (i % 10 === 9) await sleep(pauseMs);
        else await nextCallback();
      }
      return largest;
    },
    totals: () => checkpointer.totals(),
    close() {
      checkpointer.stop();
      db.close();
    },
  };
}

async function steadyWrites(restartPages: number | undefined, commits: number) {
  const database = walDatabase(restartPages);
  try {
    return await database.write(commits);
  } finally {
    database.close();
  }
}

it('restarts the log once it holds the threshold, instead of letting it grow with every commit', async () => {
  const commits = 1500; // about 4,500 pages written, over several of the worker's ticks
  const largest = await steadyWrites(300, commits);
  // Each tick finds at most one tick's commits past the threshold; without restarts the log
  // holds every page written (about 18 MB).
  expect(largest).toBeLessThan((commits * 3 * PAGE) / 2);
}, 30_000);

it('counts its steps and their time for the metrics: passive passes, the sync before a restart, the restart', async () => {
  const database = walDatabase(300);
  try {
    expect(database.totals()).toEqual({ passive: { count: 0, seconds: 0 }, sync: { count: 0, seconds: 0 }, restart: { count: 0, seconds: 0 } });
    await database.write(1500);
    const totals = database.totals();
    // Past the threshold each restart follows a sync and two passive passes (the tick's own, and
    // the one after the sync); a restart the writes kept busy is retried, not counted.
    expect(totals.restart.count).toBeGreaterThan(0);
    expect(totals.sync.count).toBeGreaterThanOrEqual(totals.restart.count);
    expect(totals.passive.count).toBeGreaterThan(totals.sync.count);
    for (const step of [totals.passive, totals.sync, totals.restart]) expect(step.seconds).toBeGreaterThan(0);
  } finally {
    database.close();
  }
}, 30_000);

it('waits out a reader that holds the log, then restarts it', async () => {
  const database = walDatabase(300);
  const reader = new SQLite(database.file);
  try {
    // A long search: its snapshot keeps the log from starting over, whatever the worker does.
    reader.exec('begin');
    reader.prepare('select count(*) from t').get();
    await database.write(300);
    const held = database.walSize();
    expect(held).toBeGreaterThan(300 * 3 * PAGE * 0.9);
    // What one commit adds to the log (its blob's pages, the table's, the frame headers): the
    // reader kept every commit so far in it.
    const perCommit = held / 300;
    reader.exec('commit');
    // Long enough for the worker's back-off (2 s) after the RESTARTs the reader made it give
    // up, with room for a slow machine: about 6 s of writes; without a restart the log would
    // grow by all of them. A fast machine writes more of them within the back-off, so the bound
    // counts commits, not pages.
    const commits = 2400;
    await database.write(commits, 25);
    expect(database.walSize() - held).toBeLessThan((commits * perCommit) / 2);
  } finally {
    reader.close();
    database.close();
  }
}, 30_000);

it('runs in a store opened with walCheckpoints, and not in one opened without (another process on the file runs it)', async () => {
  const sizes: Record<string, number> = {};
  for (const walCheckpoints of [true, false]) {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-wal-store-'));
    dirs.push(dir);
    const store = openStore({ dataDir: dir, walCheckpoints });
    try {
      const db = kyselyOf(store);
      await sql`create table scratch (body blob)`.execute(db);
      const file = join(dir, SQLITE_FILE_NAME);
      const before = statSync(file).size;
      // About 3.6 MB, far below the backstop at which a store checkpoints in its own commits.
      for (let i = 0; i < 300; i++) await sql`insert into scratch (body) values (${Buffer.alloc(3 * PAGE, i)})`.execute(db);
      // A few of the worker's ticks: its passive checkpoints copy the log into the file.
      await sleep(1000);
      sizes[String(walCheckpoints)] = statSync(file).size - before;
    } finally {
      await store.destroy();
    }
  }
  expect(sizes.true).toBeGreaterThan(300 * 3 * PAGE);
  expect(sizes.false).toBe(0);
}, 30_000);

it('tells the service why its worker stopped, instead of failing silently', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-wal-missing-'));
  dirs.push(dir);
  const warnings: { message: string; details: Record<string, unknown> }[] = [];
  const file = join(dir, 'gone.sqlite');
  const checkpointer = startWalCheckpointer(file, { warn: (message, details) => warnings.push({ message, details }) });
  try {
    await expect.poll(() => warnings.length, { timeout: 10_000 }).toBe(1);
    expect(warnings[0]!.message).toMatch(/^WAL checkpoint worker stopped; the service's own connection checkpoints once the log holds \d+ pages$/);
    expect(warnings[0]!.details).toEqual({ error: 'unable to open database file', code: 'SQLITE_CANTOPEN', file });
  } finally {
    checkpointer.stop();
  }
});
