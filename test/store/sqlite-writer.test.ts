/**
 * One writer at a time on a SQLite file that several processes (or stores) share
 * (store/sqlite-writer.ts): transactions that read and then write neither fail with
 * SQLITE_BUSY nor lose an update, and a transaction waiting for another's write lock leaves the
 * event loop running.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { openStore } from '../../src/service/store/index.js';
import { getSetting, setSetting } from '../../src/service/store/settings.js';
import { createTestSqliteDatabase, type TestDatabase } from '../helpers/test-service.js';

const COUNTER_PROCESS = fileURLToPath(new URL('./counter-process.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('a transaction waits for another write lock without blocking the event loop, then reads the latest data', async () => {
  const database = createTestSqliteDatabase();
  databases.push(database);
  // Two stores: two connections to one file, as two processes would have.
  const a = openStore({ dataDir: database.config.dataDir! });
  const b = openStore({ dataDir: database.config.dataDir! });
  try {
    await a.migrate();
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    // A holds the write lock across event-loop turns (as no service transaction does, to make the wait long).
    const first = a.transaction(async (trx) => {
      await setSetting(trx, 'owner', 'a');
      await sleep(200);
      await setSetting(trx, 'counter', '1');
    });
    await sleep(20);
    const ticksBefore = ticks;
    // B reads, then writes: with a deferred BEGIN it would fail with SQLITE_BUSY (its snapshot
    // predates A's commit); SQLite's own busy wait would block this thread, and so A, for 5 s.
    const second = b.transaction(async (trx) => {
      const counter = Number(await getSetting(trx, 'counter'));
      await setSetting(trx, 'counter', String(counter + 1));
      return counter;
    });
    await first;
    expect(await second).toBe(1);
    clearInterval(ticker);
    expect(ticks - ticksBefore).toBeGreaterThan(10);
    expect(await getSetting(a, 'counter')).toBe('2');
  } finally {
    await a.destroy();
    await b.destroy();
  }
});

it('two processes incrementing one counter in read-then-write transactions lose no update and see no SQLITE_BUSY', async () => {
  const database = createTestSqliteDatabase();
  databases.push(database);
  const store = openStore({ dataDir: database.config.dataDir! });
  try {
    await store.migrate();
    const COUNT = 500;
    // Both start counting at the same moment, once both have loaded (tsx takes a second or two).
    const start = Date.now() + 4000;
    const run = () =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', COUNTER_PROCESS, database.config.dataDir!, String(COUNT), String(start)], { cwd: ROOT });
    const outputs = await Promise.all([run(), run()]);
    expect(outputs.map((o) => o.stdout.trim())).toEqual(['DONE', 'DONE']);
    expect(await getSetting(store, 'counter')).toBe(String(2 * COUNT));
  } finally {
    await store.destroy();
  }
}, 30_000);
