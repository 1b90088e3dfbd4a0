/**
 * How a store reads its SQLite file (store/database.ts): memory-mapped, as much of it as SQLite
 * maps, when it is the only process writing it; read page by page when it is one of several
 * workers writing it (SQLite unmaps the whole file whenever another connection has committed).
 * Either way, what one connection commits, the other reads.
 */
import { sql } from 'kysely';
import { afterAll, expect, it } from 'vitest';
import { kyselyOf, openStore, type Store } from '../../src/service/store/index.js';
import { getSetting, setSetting } from '../../src/service/store/settings.js';
import { createTestSqliteDatabase } from '../helpers/test-service.js';

const database = createTestSqliteDatabase();
const stores: Store[] = [];
afterAll(async () => {
  for (const store of stores) await store.destroy();
  await database.drop();
});

async function mmapSize(store: Store): Promise<number> {
  const { rows } = await sql<{ mmap_size: number }>`PRAGMA mmap_size`.execute(kyselyOf(store));
  return Number(rows[0]!.mmap_size);
}

it('maps the file when alone, reads it when sharing it with other writers, and both see each other\'s commits', async () => {
  const alone = openStore({ dataDir: database.config.dataDir! });
  stores.push(alone);
  await alone.migrate();
  const worker = openStore({ dataDir: database.config.dataDir!, sharedWithWriters: true });
  stores.push(worker);

  // As much as SQLite maps (its compile-time cap, 2 GiB less 64 KiB in better-sqlite3's build).
  expect(await mmapSize(alone)).toBe(2 ** 31 - 2 ** 16);
  expect(await mmapSize(worker)).toBe(0);

  await setSetting(alone, 'written_by', 'alone');
  expect(await getSetting(worker, 'written_by')).toBe('alone');
  await setSetting(worker, 'written_by', 'worker');
  expect(await getSetting(alone, 'written_by')).toBe('worker');
});
