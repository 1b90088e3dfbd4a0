/**
 * The SQLite change feed (store/change-feed.ts): another connection's commit drops the read
 * caches only when it wrote a table they hold (counted by migration 010's triggers, whoever
 * writes), so the commits of events and visits by other workers leave them alone.
 */
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, expect, it } from 'vitest';
import { ensureBootstrap } from '../../src/service/bootstrap.js';
import { sqliteChangeFeed } from '../../src/service/store/change-feed.js';
import { SQLITE_FILE_NAME } from '../../src/service/store/database.js';
import { kyselyOf, openStore } from '../../src/service/store/index.js';
import { CACHED_TABLES } from '../../src/service/store/migrations/011-cache-generation.js';
import { setSetting } from '../../src/service/store/settings.js';
import { setWorkspaceDeletionEnabled } from '../../src/service/store/workspaces.js';
import { createTestSqliteDatabase, type TestDatabase } from '../helpers/test-service.js';

const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
});

function fresh() {
  const database = createTestSqliteDatabase();
  databases.push(database);
  return { dataDir: database.config.dataDir!, file: join(database.config.dataDir!, SQLITE_FILE_NAME) };
}

it('a commit elsewhere invalidates only when it wrote a cached table, through the store or not', async () => {
  const { dataDir, file } = fresh();
  const other = openStore({ dataDir });
  const connection = new SQLite(file);
  try {
    await other.migrate();
    const { bootstrap } = await ensureBootstrap(other, { region: 'us', now: Date.now() });
    const feed = sqliteChangeFeed(connection);
    expect(feed.changedElsewhere()).toBe(false);

    await setSetting(other, 'unrelated', 'x'); // as an event or a visit: not a cached table
    expect(feed.changedElsewhere()).toBe(false);

    // Writes that neither go through writeShared nor invalidate anything themselves.
    await kyselyOf(other).updateTable('api_keys').set({ rate_limit: 7 }).where('id', '=', bootstrap.publicKeyId).execute();
    expect(feed.changedElsewhere()).toBe(true);
    expect(feed.changedElsewhere()).toBe(false);
    await setWorkspaceDeletionEnabled(other, bootstrap.workspaceId, true);
    expect(feed.changedElsewhere()).toBe(true);
    await setSetting(other, 'unrelated', 'y');
    expect(feed.changedElsewhere()).toBe(false);
  } finally {
    connection.close();
    await other.destroy();
  }
});

it('before the counter exists, every commit elsewhere invalidates', async () => {
  const { dataDir, file } = fresh();
  const other = openStore({ dataDir });
  const connection = new SQLite(file);
  try {
    const feed = sqliteChangeFeed(connection); // an old database: not migrated yet
    await kyselyOf(other).schema.createTable('before_migration').addColumn('x', 'integer').execute();
    expect(feed.changedElsewhere()).toBe(true);
    await other.migrate();
    expect(feed.changedElsewhere()).toBe(true);
    await setSetting(other, 'unrelated', 'x');
    expect(feed.changedElsewhere()).toBe(false);
  } finally {
    connection.close();
    await other.destroy();
  }
});

it('every cached table has a counting trigger for insert, update and delete', async () => {
  const { dataDir } = fresh();
  const store = openStore({ dataDir });
  try {
    await store.migrate();
    const { rows } = await sql<{ tbl_name: string }>`select tbl_name from sqlite_master where type = 'trigger'`.execute(kyselyOf(store));
    for (const table of CACHED_TABLES) expect(rows.filter((r) => r.tbl_name === table)).toHaveLength(3);
  } finally {
    await store.destroy();
  }
});
