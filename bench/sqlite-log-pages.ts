/**
 * What an identification writes on SQLite: the pages each commit adds to the write-ahead log,
 * per identification and by the table or index they belong to. SQLite writes every page a commit
 * touched whole to its log, and the checkpoint later copies each one back into the database file,
 * so these pages are most of an identification's I/O (docs/performance.md).
 *
 *   npx tsx --import ./bench/compiled-code.mjs bench/sqlite-log-pages.ts
 *   BENCH_EVENTS=200000 BENCH_VISITORS=20000 BENCH_GROUPS=1,5,20 npx tsx --import ./bench/compiled-code.mjs bench/sqlite-log-pages.ts
 *
 * The service runs in this process without its checkpoint worker, on a database seeded as the
 * service benchmark seeds it (bench/seed-events.ts); the service benchmark's browsers make their
 * first visits, then their returning visits (with their tokens, from their own addresses) are
 * sent in groups of BENCH_GROUPS requests at once (the requests of a group share a commit, as a
 * busy service's do; a group of 1 is a quiet service's commit per identification). Before each
 * group size the log is emptied (a TRUNCATE checkpoint), and after it SQLite's own count of the
 * log's frames is read, then each frame's page is looked up in `dbstat` (which table or index).
 * Each size sends at most as many visits as stay below the service's own checkpoint threshold.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createService } from '../src/service/index.js';
import { findApiKeyByToken, setApiKeyRateLimit } from '../src/service/store/api-keys.js';
import { BACKSTOP_CHECKPOINT_PAGES } from '../src/service/store/wal-checkpointer.js';
import { SQLITE_FILE_NAME } from '../src/service/store/database.js';
import { kyselyOf } from '../src/service/store/index.js';
import { createTestSqliteDatabase } from '../test/helpers/test-service.js';
import { bodyOf, browserRequests, type BrowserRequest } from './browser-requests.js';
import { SEED_NOW, seedEvents, seedVisitors } from './seed-events.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 50_000);
const VISITORS = Number(process.env.BENCH_VISITORS ?? 5_000);
const BROWSERS = Number(process.env.BENCH_BROWSERS ?? 1_500);
const GROUPS = (process.env.BENCH_GROUPS ?? '1,20').split(',').map(Number);
/** Visits per group size: well below the service's own checkpoint at BACKSTOP_CHECKPOINT_PAGES (about 17 pages each, one at a time). */
const VISITS = Math.floor(BACKSTOP_CHECKPOINT_PAGES / 25);
/** WAL file: a 32-byte header, then frames of a 24-byte header (its page number first) and a page. */
const WAL_HEADER = 32;
const FRAME_HEADER = 24;

const database = createTestSqliteDatabase();
const offset = SEED_NOW - Date.now();
// backgroundJobs: false also leaves out the checkpoint worker (store/wal-checkpointer.ts).
const service = await createService(
  { ...database.config, port: 0, logLevel: 'silent', trustProxy: true, clock: () => Date.now() + offset },
  { backgroundJobs: false },
);
try {
  const key = await findApiKeyByToken(service.ctx.store, service.bootstrap.publicKey);
  await setApiKeyRateLimit(service.ctx.store, key!.id, 1_000_000_000);
  const seeded = await seedEvents(service, { events: EVENTS, visitors: VISITORS });
  await seedVisitors(service, seeded.visitors);
  const db = kyselyOf(service.ctx.store);
  const checkpoint = async (mode: 'TRUNCATE' | 'PASSIVE') =>
    (await sql<{ log: number }>`pragma ${sql.raw(`wal_checkpoint(${mode})`)}`.execute(db)).rows[0]!.log;

  const tokens = new Map<number, string>();
  const send = async (r: BrowserRequest) => {
    const res = await service.app.inject({ method: 'POST', url: '/', headers: r.headers, payload: bodyOf(r.head, tokens.get(r.browser)) });
    if (res.statusCode !== 200) throw new Error(`identification answered ${res.statusCode}: ${res.body}`);
    tokens.set(r.browser, res.json<{ token: string }>().token);
  };
  const { first, later } = browserRequests('service-throughput', BROWSERS, service.bootstrap.publicKey);
  for (let i = 0; i < first.length; i += 20) await Promise.all(first.slice(i, i + 20).map(send));

  console.log(`${EVENTS.toLocaleString('en')} seeded events of ${VISITORS.toLocaleString('en')} visitors; ${first.length} browsers, then their returning visits`);
  let next = 0;
  for (const group of GROUPS) {
    const visits = later.slice(next, next + VISITS);
    next += visits.length;
    if (visits.length < VISITS) throw new Error(`not enough returning visits for a group of ${group}: raise BENCH_BROWSERS`);
    await checkpoint('TRUNCATE');
    for (let i = 0; i < visits.length; i += group) await Promise.all(visits.slice(i, i + group).map(send));
    const frames = await checkpoint('PASSIVE');

    // Which table or index each frame's page belongs to (as the database stands now).
    const owners = new Map<number, string>();
    for (const r of (await sql<{ name: string; pageno: number }>`select name, pageno from dbstat`.execute(db)).rows) owners.set(r.pageno, r.name);
    const wal = readFileSync(join(database.config.dataDir!, `${SQLITE_FILE_NAME}-wal`));
    const pageSize = wal.readUInt32BE(8);
    const perOwner = new Map<string, number>();
    for (let i = 0; i < frames; i++) {
      const page = wal.readUInt32BE(WAL_HEADER + i * (FRAME_HEADER + pageSize));
      // Page 1 holds the database header (its size, which most commits change) and the schema's root.
      const owner = page === 1 ? 'page 1 (the database header)' : (owners.get(page) ?? 'free or new pages');
      perOwner.set(owner, (perOwner.get(owner) ?? 0) + 1);
    }
    console.log(`\n${group} request(s) at a time: ${visits.length} identifications, ${frames} pages logged, ${(frames / visits.length).toFixed(2)} per identification`);
    console.log('| Table or index | Pages per identification |\n| --- | ---: |');
    for (const [owner, n] of [...perOwner].sort((a, b) => b[1] - a[1])) console.log(`| ${owner} | ${(n / visits.length).toFixed(2)} |`);
  }
} finally {
  await service.close();
  await database.drop();
}
