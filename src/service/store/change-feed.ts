/**
 * Cross-process invalidation of the read caches (read-cache.ts): a key disabled or a rule
 * changed through any process must apply on the next request of every process.
 *
 * - PostgreSQL: each write to a cached table sends `NOTIFY tessera_changes` in its own
 *   transaction (so it is delivered exactly when the change commits, never before); each store
 *   LISTENs on a dedicated connection and clears its caches on every notification. Delivery is
 *   asynchronous (one network hop after the commit): another process may answer from its cache
 *   for that long, milliseconds in practice. While the listening connection is down (not yet
 *   connected, or lost until it reconnects) nothing is cached at all.
 * - SQLite: `PRAGMA data_version` changes on this connection whenever another connection
 *   (another process, the CLI) commits; reading it is a function call, not I/O, so it is checked
 *   before trusting any cache entry. When it changed, the counter that triggers increment on
 *   every write to a cached table (migration 010) says whether that commit touched one: other
 *   workers' commits of events and visits, nearly all of them, leave the caches alone. Exact:
 *   no delay.
 *
 * Writes made through this store invalidate its caches themselves (`recordChange`).
 */
import { CACHE_GENERATION_TABLE } from './migrations/011-cache-generation.js';
import { requireOptional } from './optional-dependency.js';
import type { Database } from './schema.js';
import type SQLite from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import type Pg from 'pg';

export const CHANGES_CHANNEL = 'tessera_changes';
const RECONNECT_DELAY_MS = 1000;

export interface ChangeFeed {
  /** True when another process may have changed cached tables since the last call. */
  changedElsewhere(): boolean;
  /** `listener` runs on every change another process announces (PostgreSQL). */
  onChange(listener: () => void): void;
  close(): Promise<void>;
}

export function sqliteChangeFeed(sqlite: SQLite.Database): ChangeFeed {
  // Prepared once: `sqlite.pragma()` compiles its statement on every call, and this runs before
  // the first cached read of each event-loop callback (once per identification).
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  const version = () => dataVersion.get() as number;
  // The counter of changes to cached tables (migration 010); until it exists, every commit elsewhere counts.
  let generationQuery: SQLite.Statement | undefined;
  const generation = (): number | undefined => {
    try {
      generationQuery ??= sqlite.prepare(`select generation from ${CACHE_GENERATION_TABLE} where id = 1`).pluck();
      return generationQuery.get() as number | undefined;
    } catch {
      return undefined;
    }
  };
  let seenVersion = version();
  let seenGeneration = generation();
  return {
    changedElsewhere() {
      if (!sqlite.open) return true;
      const now = version();
      if (now === seenVersion) return false;
      seenVersion = now;
      // Another connection committed: its events and visits leave the caches valid.
      const current = generation();
      if (current !== undefined && current === seenGeneration) return false;
      seenGeneration = current;
      return true;
    },
    onChange() {},
    async close() {},
  };
}

export function postgresChangeFeed(connectionString: string): ChangeFeed {
  const listeners: (() => void)[] = [];
  let client: Pg.Client | undefined;
  let listening = false;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const changed = () => listeners.forEach((l) => l());

  const connect = () => {
    const { Client } = requireOptional<typeof Pg>('pg', 'DATABASE_URL');
    const c = new Client({ connectionString });
    client = c;
    const lost = () => {
      if (client !== c) return;
      listening = false;
      client = undefined;
      changed(); // what was cached while connected may have missed notifications
      c.end().catch(() => undefined);
      if (!closed) {
        retry = setTimeout(connect, RECONNECT_DELAY_MS);
        retry.unref();
      }
    };
    c.on('error', lost);
    c.on('end', lost);
    c.on('notification', changed);
    c.connect()
      .then(() => c.query(`LISTEN ${CHANGES_CHANNEL}`))
      .then(() => {
        if (client !== c) return;
        listening = true;
        changed(); // changes made before LISTEN took effect were not announced to us
      })
      .catch(lost);
  };
  connect();

  return {
    changedElsewhere: () => !listening,
    onChange: (listener) => listeners.push(listener),
    async close() {
      closed = true;
      clearTimeout(retry);
      const c = client;
      client = undefined;
      listening = false;
      await c?.end().catch(() => undefined);
    },
  };
}

/** Within the writing transaction: tells the other processes (PostgreSQL) once it commits. */
export async function announceChange(db: Kysely<Database>, engine: 'sqlite' | 'postgres'): Promise<void> {
  if (engine === 'postgres') await sql`select pg_notify(${CHANGES_CHANNEL}, '')`.execute(db);
}
