/**
 * One writer at a time on a SQLite file that several processes share (`tessera start
 * --workers N`, or the CLI next to a running service), without SQLITE_BUSY reaching a caller
 * and without stopping the event loop while another process writes.
 *
 * - Every transaction starts with BEGIN IMMEDIATE: it takes the write lock before it reads.
 *   A deferred BEGIN that reads and then writes fails at once with SQLITE_BUSY when another
 *   process committed in between (its snapshot is stale, and no waiting can fix that), whatever
 *   busy_timeout says.
 * - While another process holds the lock, the BEGIN is tried again every millisecond (a timer,
 *   for up to BUSY_TIMEOUT_MS) instead of in SQLite's busy handler, which sleeps on the event
 *   loop: meanwhile this process goes on parsing and answering requests, and their writes join
 *   the next shared commit (group-commit.ts). Only then does a caller see the error. A write
 *   transaction holds the lock about 0.2 ms at the median (3 ms at p99, two workers at half
 *   load); a delay that grew (1, 2, 4, 8, then 16 ms) let the other worker take the lock again
 *   and again meanwhile (`--workers 2`: the waits' p99 8-17 ms against 7-12 ms every
 *   millisecond; docs/performance.md). A failed BEGIN costs a lock attempt on the file, no more.
 * - Statements outside transactions keep the connection's busy_timeout (database.ts); in WAL
 *   mode reads never wait for a writer.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';

/** How long a write waits for another process's write lock before failing. */
export const BUSY_TIMEOUT_MS = 5000;
/** Between two attempts at the write lock. */
const RETRY_DELAY_MS = 1;

const BEGIN_IMMEDIATE = CompiledQuery.raw('begin immediate');
const NO_WAIT = CompiledQuery.raw('pragma busy_timeout = 0');
const WAIT = CompiledQuery.raw(`pragma busy_timeout = ${BUSY_TIMEOUT_MS}`);

/** SQLITE_BUSY and its extended codes (better-sqlite3 reports extended codes). */
export function isBusyError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

class WriterDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    // Not SQLite's busy handler for the BEGIN: it would sleep on the event loop.
    await connection.executeQuery(NO_WAIT);
    try {
      const deadline = performance.now() + BUSY_TIMEOUT_MS;
      for (;;) {
        try {
          await connection.executeQuery(BEGIN_IMMEDIATE);
          return;
        } catch (err) {
          if (!isBusyError(err) || performance.now() >= deadline) throw err;
        }
        await sleep(RETRY_DELAY_MS);
      }
    } finally {
      await connection.executeQuery(WAIT);
    }
  }
}

/** Kysely's SQLite dialect with the transactions above. */
export class SqliteWriterDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new WriterDriver(this.#config);
  }
}
