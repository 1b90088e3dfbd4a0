/**
 * Opens the store: SQLite (better-sqlite3, WAL) in the data directory by default, or
 * PostgreSQL when a `postgres://` URL is given. Both go through Kysely with one schema.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import type Pg from 'pg';
import { postgresChangeFeed, sqliteChangeFeed, type ChangeFeed } from './change-feed.js';
import { ensurePrivateDir, ensurePrivateFile, type Warn } from './file-modes.js';
import { requireOptional } from './optional-dependency.js';
import { withNamedStatements } from './pg-named-statements.js';
import { migrationProvider } from './migrations/index.js';
import { BUSY_TIMEOUT_MS, SqliteWriterDialect } from './sqlite-writer.js';
import type { Database } from './schema.js';
import { BACKSTOP_CHECKPOINT_PAGES, startWalCheckpointer, type CheckpointTotals } from './wal-checkpointer.js';

export type Engine = 'sqlite' | 'postgres';

export interface OpenedDatabase {
  db: Kysely<Database>;
  engine: Engine;
  /** Where the data lives, for people: the SQLite file or the PostgreSQL URL without password. */
  location: string;
  /** What other processes change (change-feed.ts); closed by the caller after `db`. */
  changes: ChangeFeed;
  /** PostgreSQL: the pool, for its counters. */
  pool?: Pg.Pool;
  /** SQLite with the WAL checkpoint worker: its steps so far, for the metrics. */
  checkpoints?: () => CheckpointTotals;
}

export interface OpenDatabaseOptions {
  dataDir: string;
  databaseUrl?: string;
  poolSize?: number;
  warn?: Warn;
  /**
   * SQLite: other processes write to the same file all the time (this process is one of the
   * workers of `tessera start --workers N`); the file is then read, not memory-mapped.
   */
  sharedWithWriters?: boolean;
  /**
   * SQLite: run the WAL checkpoint worker (wal-checkpointer.ts; default true). Of several
   * processes on one file, one is enough: the others' checkpoints would copy the same frames
   * again, and each RESTART holds the write lock every process waits for. Without it a process
   * still checkpoints in its own commits past BACKSTOP_CHECKPOINT_PAGES.
   */
  walCheckpoints?: boolean;
}

export const SQLITE_FILE_NAME = 'tessera.sqlite';

const PG_INT8_OID = 20;
const PG_NUMERIC_OID = 1700;

export function isPostgresUrl(url: string | undefined): url is string {
  return !!url && /^postgres(ql)?:\/\//i.test(url);
}

/**
 * A memory map as large as SQLite makes one: it caps `mmap_size` at its compile-time
 * SQLITE_MAX_MMAP_SIZE, 2 GiB less 64 KiB in better-sqlite3's build. The pages are the file's,
 * in the kernel's page cache (it can reclaim them), not the process's own memory.
 */
const MMAP_ALL = 2 ** 40;

export function openDatabase(opts: OpenDatabaseOptions): OpenedDatabase {
  if (opts.databaseUrl && !isPostgresUrl(opts.databaseUrl)) {
    throw new Error(`DATABASE_URL must start with postgres:// or postgresql:// (got "${redactUrl(opts.databaseUrl)}")`);
  }
  if (isPostgresUrl(opts.databaseUrl)) {
    const pg = requireOptional<typeof Pg>('pg', 'DATABASE_URL');
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: opts.poolSize ?? 10,
      // A connection keeps every named statement it ran; the identification's reads get a new
      // text each week (recent-partitions.ts), so connections are replaced after a day.
      maxLifetimeSeconds: 24 * 3600,
      // Times are bigint milliseconds and counts are int8: both fit a JS number.
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
          oid === PG_INT8_OID || oid === PG_NUMERIC_OID
            ? (value: string) => Number(value)
            : (pg.types.getTypeParser(oid, format) as (value: string) => unknown)) as typeof pg.types.getTypeParser,
      },
    });
    // An idle connection can fail (server restart, database dropped while closing); pg-pool
    // then emits 'error', which would crash the process without a listener. The pool drops
    // that connection and opens a new one on the next query.
    pool.on('error', () => undefined);
    return {
      db: new Kysely<Database>({ dialect: new PostgresDialect({ pool: withNamedStatements(pool) }) }),
      engine: 'postgres',
      location: redactUrl(opts.databaseUrl),
      changes: postgresChangeFeed(opts.databaseUrl),
      pool,
    };
  }
  const warn = opts.warn ?? (() => undefined);
  const dir = resolve(opts.dataDir);
  ensurePrivateDir(dir, warn);
  const file = join(dir, SQLITE_FILE_NAME);
  const fresh = !existsSync(file);
  const sqlite = new SQLite(file);
  // Before the WAL files exist: SQLite creates them with the database file's mode.
  ensurePrivateFile(file, warn, fresh);
  for (const extra of [`${file}-wal`, `${file}-shm`]) if (existsSync(extra)) ensurePrivateFile(extra, warn);
  sqlite.pragma('journal_mode = WAL');
  // WAL + NORMAL is durable across application crashes; only a power loss can lose the last commits.
  sqlite.pragma('synchronous = NORMAL');
  // Several processes may share the file (--workers, the CLI): a statement waits this long for
  // another's write lock; transactions wait for it without blocking the event loop (sqlite-writer.ts).
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  sqlite.pragma('foreign_keys = ON');
  // Each identification touches pages all over the event indexes: memory-mapped reads (no read
  // syscall per page) keep that cheap on a large database. As much of the file as SQLite maps
  // (MMAP_ALL): the pages past the map's end are read into the small cache below, and that is
  // where a growing database adds its new pages, the ones the reads want most: with a
  // 1 GiB map on a database of 1M events (2 GB or more), the candidates' rows took 206 and 217 µs a
  // read, against 165 and 191 µs with 2 GiB mapped (two alternated runs of the service
  // benchmark, 2026-12-03); writes did not change. The page cache stays small (8 MiB):
  // while the database is under 1 GiB, nearly every commit makes SQLite walk the cache's whole
  // hash table (a B-tree split parks a page at the page number just past 1 GiB, and the end of
  // the transaction truncates the cache back to the database size). With 64 MiB that walk took
  // 40% of each commit's time in the service benchmark; reads do no worse with 8 MiB on a
  // database of 1 million events.
  sqlite.pragma('cache_size = -8192');
  // Not when other busy processes write the file (the workers of `tessera start --workers N`):
  // each time another connection has committed, SQLite unmaps the whole file before the next
  // read, and the pages it reads again are mapped and faulted in anew. With two workers that
  // cost more than reading the pages (2026-11-29, service benchmark: 1.9 ms of CPU per
  // identification with the map, 1.3 ms without; one process: 1.0-1.2 ms with, 1.5 ms without).
  sqlite.pragma(`mmap_size = ${opts.sharedWithWriters ? 0 : MMAP_ALL}`);
  // Checkpoints run in a worker thread (wal-checkpointer.ts), not inside the service's commits.
  sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_CHECKPOINT_PAGES}`);
  const checkpointer = opts.walCheckpoints === false ? undefined : startWalCheckpointer(file, { warn });
  const database = withStatementCache(sqlite);
  return {
    db: new Kysely<Database>({
      dialect: new SqliteWriterDialect({
        database: {
          ...database,
          close: () => {
            checkpointer?.stop();
            database.close();
          },
        },
      }),
    }),
    engine: 'sqlite',
    location: file,
    changes: sqliteChangeFeed(sqlite),
    ...(checkpointer ? { checkpoints: () => checkpointer.totals() } : {}),
  };
}

/**
 * better-sqlite3 compiles every statement it is handed; Kysely hands it the same few SQL
 * strings on every request. Reusing compiled statements is safe because Kysely runs one
 * query at a time on its single SQLite connection. Bounded: dynamic SQL (IN lists) varies.
 */
export function withStatementCache(sqlite: SQLite.Database, maxStatements = 500): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => sqlite.close(),
    prepare(sql) {
      let statement = statements.get(sql);
      if (!statement) {
        statement = sqlite.prepare(sql);
        if (statements.size >= maxStatements) statements.clear();
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}

/** Brings the schema to the latest version; safe to run concurrently from several processes. */
export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    const what = failed ? `database migration ${failed.migrationName} failed` : 'cannot migrate the database';
    throw new Error(`${what}: ${error instanceof Error ? error.message : JSON.stringify(error)}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** The URL without its password, safe to print and log. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '<unparseable url>';
  }
}
