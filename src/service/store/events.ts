/**
 * Stored identification events: the full v4 event as JSON plus the columns that search,
 * filters and counters use. The columns always mirror the payload: `eventColumns` derives
 * them, and every writer (insert here, PATCH in the Server API) goes through it.
 */
import type { Kysely, Transaction } from 'kysely';
import type { V4Event } from '../../events/v4-event.js';
import { engineOf } from './database.js';
import { commitTogether, groupWriter } from './group-commit.js';
import { prepareQuery } from './prepared-query.js';
import type { Database, EventsTable } from './schema.js';

type Db = Kysely<Database> | Transaction<Database>;

function flag(value: boolean | undefined): number | null {
  return value === undefined ? null : value ? 1 : 0;
}

/** The page origin of an event URL (`null` when the URL does not parse). */
export function originOf(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/** The indexed columns of an event, derived from its payload. */
export function eventColumns(
  event: V4Event,
  ids: { workspaceId: string; environmentId: string; requestHash?: string | null },
): EventsTable {
  return {
    event_id: event.event_id,
    workspace_id: ids.workspaceId,
    environment_id: event.environment_id ?? ids.environmentId,
    visitor_id: event.identification?.visitor_id ?? '',
    timestamp: event.timestamp,
    linked_id: event.linked_id ?? null,
    ip_address: event.ip_address ?? null,
    url: event.url ?? null,
    origin: originOf(event.url),
    suspect: event.suspect ? 1 : 0,
    bot: event.bot ?? null,
    incognito: flag(event.incognito),
    vpn: flag(event.vpn),
    tampering: flag(event.tampering),
    virtual_machine: flag(event.virtual_machine),
    developer_tools: flag(event.developer_tools),
    privacy_settings: flag(event.privacy_settings),
    suspect_score: event.suspect_score ?? null,
    sdk_platform: event.sdk?.platform ?? null,
    sdk_version: event.sdk?.version ?? null,
    request_hash: ids.requestHash ?? null,
    payload: JSON.stringify(event),
  };
}

/** Every column of the events table, in the order eventColumns writes them. */
const EVENT_COLUMNS = Object.keys(eventColumns({ event_id: '', timestamp: 0 } as V4Event, { workspaceId: '', environmentId: '' })) as (keyof EventsTable)[];

// Ingestion writes one event per request: compiled once (prepared-query.ts).
const insertEventQuery = prepareQuery((db: Kysely<Database>, param) =>
  db.insertInto('events').values(Object.fromEntries(EVENT_COLUMNS.map((column) => [column, param(column)])) as EventsTable),
);

// PostgreSQL: one multi-row insert per event-loop turn and database (group-commit.ts).
const postgresEventWriters = new WeakMap<object, (row: EventsTable) => Promise<void>>();

function insertOnPostgres(db: Kysely<Database>, row: EventsTable): Promise<void> {
  let write = postgresEventWriters.get(db);
  if (!write) {
    write = groupWriter<EventsTable>(
      (rows) => (rows.length === 1 ? insertEventQuery(db, rows[0]!) : db.insertInto('events').values(rows).execute()),
      (one) => insertEventQuery(db, one),
    );
    postgresEventWriters.set(db, write);
  }
  return write(row);
}

/**
 * Stores one event; resolves once it is committed. Outside a transaction the inserts of
 * concurrent requests are written together (group-commit.ts): one commit on SQLite, one
 * statement on PostgreSQL.
 */
export async function insertEvent(
  db: Db,
  event: V4Event,
  ids: { workspaceId: string; environmentId: string; requestHash?: string | null },
): Promise<void> {
  const row = eventColumns(event, ids);
  if (db.isTransaction) await insertEventQuery(db, row);
  else if (engineOf(db) === 'sqlite') await commitTogether(db, (trx) => insertEventQuery(trx, row));
  else await insertOnPostgres(db, row);
}

export async function getEvent(db: Db, workspaceId: string, eventId: string): Promise<V4Event | undefined> {
  const row = await db
    .selectFrom('events')
    .select('payload')
    .where('workspace_id', '=', workspaceId)
    .where('event_id', '=', eventId)
    .executeTakeFirst();
  return row ? (JSON.parse(row.payload) as V4Event) : undefined;
}

/** The newest events of one visitor, newest first. */
export async function listRecentVisitorEvents(
  db: Db,
  opts: { workspaceId: string; visitorId: string; limit: number },
): Promise<V4Event[]> {
  const rows = await db
    .selectFrom('events')
    .select('payload')
    .where('workspace_id', '=', opts.workspaceId)
    .where('visitor_id', '=', opts.visitorId)
    .orderBy('timestamp', 'desc')
    .orderBy('event_id', 'desc')
    .limit(opts.limit)
    .execute();
  return rows.map((r) => JSON.parse(r.payload) as V4Event);
}

/** All stored events (tests use it to prove a refused request stored nothing). */
export async function countEvents(db: Db, workspaceId?: string): Promise<number> {
  let q = db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n'));
  if (workspaceId) q = q.where('workspace_id', '=', workspaceId);
  const row = await q.executeTakeFirstOrThrow();
  return Number(row.n);
}
