/**
 * Stored identification events: the full v4 event as JSON plus the columns that search,
 * filters and counters use. The columns always mirror the payload: `eventColumns` derives
 * them, and every writer (insert here, PATCH in the Server API) goes through it.
 */
import { sql, type Kysely } from 'kysely';
import type { V4Event } from '../../events/v4-event.js';
import { commitTogether, groupWriter } from './group-commit.js';
import { internalsOf, type Store } from './handle.js';
import { dropEventPartition, ensureEventPartitions, listEventPartitions, RETENTION_LOCK, timeWindows, type TimeWindow } from './event-partitions.js';
import { keptPartitions } from './recent-partitions.js';
import { eventIdTime } from './ids.js';
import { ipSortKey } from './ip-sort.js';
import { prepareQuery } from './prepared-query.js';
import type { Database, DeliveryRows, EventsTable, WebhookDeliveriesTable } from './schema.js';
import { deleteDeliveriesOfEvents, deliveryRows, insertDeliveryRows, keepDeliveryBodies, type DeliveryLease, type NewDelivery } from './webhook-deliveries.js';
import { POSTGRES_VISITOR_WRITES, preparePostgresWrites, writeVisitor, type VisitorStatement, type VisitorWrite } from './visitors.js';

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

/**
 * The stored payload of an event: its JSON text, which the Server API serves as is (and the
 * sealed result and v4 webhook deliveries carry). Callers that need the text before the event
 * is stored make it here and hand it to insertEvent, so it is serialised once.
 */
export function eventPayload(event: V4Event): string {
  return JSON.stringify(event);
}

/** The indexed columns of an event, derived from its payload (`payload`: eventPayload(event), when made already). */
export function eventColumns(
  event: V4Event,
  ids: { workspaceId: string; environmentId: string; requestHash?: string | null },
  payload: string = eventPayload(event),
): EventsTable {
  return {
    event_id: event.event_id,
    workspace_id: ids.workspaceId,
    environment_id: event.environment_id ?? ids.environmentId,
    visitor_id: event.identification?.visitor_id ?? '',
    timestamp: event.timestamp,
    linked_id: event.linked_id ?? null,
    ip_address: event.ip_address ?? null,
    ip_sort: ipSortKey(event.ip_address),
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
    payload,
  };
}

/** Every column of the events table, in the order eventColumns writes them. */
const EVENT_COLUMNS = Object.keys(eventColumns({ event_id: '', timestamp: 0 }, { workspaceId: '', environmentId: '' })) as (keyof EventsTable)[];

// Ingestion writes one event per request: compiled once (prepared-query.ts).
const insertEventQuery = prepareQuery((db: Kysely<Database>, param) =>
  db.insertInto('events').values(Object.fromEntries(EVENT_COLUMNS.map((column) => [column, param(column)])) as EventsTable),
);

/** An event row with the webhook deliveries (outbox rows) that must be stored with it. */
interface EventWrite {
  row: EventsTable;
  deliveries: DeliveryRows;
}

/** Writes events and their deliveries in one transaction (or statement): never one without the other. */
async function writeEvents(store: Store, writes: EventWrite[]): Promise<void> {
  const { db } = internalsOf(store);
  const deliveries: DeliveryRows = { rows: writes.flatMap((w) => w.deliveries.rows), payloads: writes.flatMap((w) => w.deliveries.payloads) };
  if (writes.length === 1 && deliveries.rows.length === 0) {
    await insertEventQuery(store, writes[0]!.row);
  } else if (deliveries.rows.length === 0) {
    await db.insertInto('events').values(writes.map((w) => w.row)).execute();
  } else if (db.isTransaction || store.engine === 'sqlite') {
    for (const w of writes) await insertEventQuery(store, w.row);
    await insertDeliveryRows(store, deliveries);
  } else {
    // PostgreSQL outside a transaction: one statement (data-modifying CTEs) is atomic and
    // costs one round trip, where BEGIN ... COMMIT would cost three more.
    const withEvents = db.with('stored_events', (cte) => cte.insertInto('events').values(writes.map((w) => w.row)));
    if (deliveries.payloads.length === 0) await withEvents.insertInto('webhook_deliveries').values(deliveries.rows).execute();
    else {
      await withEvents
        .with('stored_deliveries', (cte) => cte.insertInto('webhook_deliveries').values(deliveries.rows))
        .insertInto('webhook_delivery_payloads')
        .values(deliveries.payloads)
        .execute();
    }
  }
}

// PostgreSQL: one multi-row insert per event-loop turn and store (group-commit.ts).
function insertOnPostgres(store: Store, write: EventWrite): Promise<void> {
  const { state } = internalsOf(store);
  state.insertEventRow ??= groupWriter<EventWrite>(
    (writes) => writeEvents(store, writes),
    (one) => writeEvents(store, [one]),
  );
  return state.insertEventRow(write);
}

/**
 * PostgreSQL: a visit's visitor writes, its event and its deliveries as one statement of
 * data-modifying CTEs (atomic, one round trip). The event's values are named `event_<column>`;
 * the deliveries come as JSON arrays (`deliveries` and their `delivery_payloads`, possibly empty), so that the statement's
 * text is the same for every visit and compiles once.
 */
const EVENT_VALUE = 'event_';
const insertEventRow: VisitorStatement = (qc, p) =>
  qc.insertInto('events').values(Object.fromEntries(EVENT_COLUMNS.map((column) => [column, p(EVENT_VALUE + column)])) as EventsTable);
const insertDeliveriesFromJson: VisitorStatement = (qc, p) =>
  qc
    .insertInto('webhook_deliveries')
    .expression(sql`select * from json_populate_recordset(null::webhook_deliveries, cast(${p('deliveries')} as json))`);
const insertDeliveryPayloadsFromJson: VisitorStatement = (qc, p) =>
  qc
    .insertInto('webhook_delivery_payloads')
    .expression(sql`select * from json_populate_recordset(null::webhook_delivery_payloads, cast(${p('delivery_payloads')} as json))`);
const withEvent = (kind: VisitorWrite['kind']) =>
  preparePostgresWrites([...POSTGRES_VISITOR_WRITES[kind], insertEventRow, insertDeliveriesFromJson, insertDeliveryPayloadsFromJson]);
const visitWithEventOnPostgres: Record<VisitorWrite['kind'], ReturnType<typeof withEvent>> = {
  insert: withEvent('insert'),
  visit: withEvent('visit'),
  relink: withEvent('relink'),
};

/** Writes a visit's visitor writes with its event (and deliveries): all or nothing. */
async function writeVisitWithEvent(store: Store, visitor: VisitorWrite, write: EventWrite): Promise<void> {
  if (internalsOf(store).db.isTransaction) {
    await writeVisitor(store, visitor);
    await writeEvents(store, [write]);
  } else if (store.engine === 'sqlite') {
    // In the shared transaction of concurrent requests; a failing group is retried one work
    // at a time (group-commit.ts), each visit still with its event.
    await commitTogether(store, async (trx) => {
      await visitor.onSqlite(trx);
      await writeEvents(trx, [write]);
    });
  } else {
    const deliveries = JSON.stringify(write.deliveries.rows);
    const deliveryPayloads = JSON.stringify(write.deliveries.payloads);
    // Each value read where it is (prepared-query.ts PreparedValues), not merged into one object.
    await visitWithEventOnPostgres[visitor.kind](store, (name) => {
      if (name.startsWith(EVENT_VALUE)) return write.row[name.slice(EVENT_VALUE.length) as keyof EventsTable];
      if (name === 'deliveries') return deliveries;
      if (name === 'delivery_payloads') return deliveryPayloads;
      return visitor.values[name];
    });
  }
}

/**
 * Stores one event, and the webhook deliveries of it (the outbox) in the same transaction;
 * resolves once it is committed. Outside a transaction the inserts of concurrent requests are
 * written together (group-commit.ts): one commit on SQLite, one statement on PostgreSQL.
 *
 * With `visitor` (the writes identification planned for this visit), those are written in the
 * same unit: a failure leaves neither the visitor's changes nor the event. On SQLite this is
 * still the shared commit; on PostgreSQL it is one statement per visit (not the multi-row
 * insert of concurrent events, which one visit's own visitor writes cannot join).
 *
 * `payload`: `eventPayload(event)` when the caller made it already (it is stored as given).
 * `lease`: the deliveries are queued leased (webhook-deliveries.ts `DeliveryLease`).
 * Resolves to the deliveries' rows as written, in the order of `deliveries`.
 */
export async function insertEvent(
  store: Store,
  event: V4Event,
  ids: { workspaceId: string; environmentId: string; requestHash?: string | null },
  opts: { payload?: string; deliveries?: readonly NewDelivery[]; now?: number; visitor?: VisitorWrite; lease?: DeliveryLease } = {},
): Promise<readonly WebhookDeliveriesTable[]> {
  const write: EventWrite = {
    row: eventColumns(event, ids, opts.payload),
    deliveries: deliveryRows(opts.deliveries ?? [], opts.now ?? event.timestamp, opts.lease),
  };
  if (opts.visitor) await writeVisitWithEvent(store, opts.visitor, write);
  else if (internalsOf(store).db.isTransaction) await writeEvents(store, [write]);
  else if (store.engine === 'sqlite') await commitTogether(store, (trx) => writeEvents(trx, [write]));
  else await insertOnPostgres(store, write);
  return write.deliveries.rows;
}

/**
 * A lookup by event id also matches the time in the id: on PostgreSQL that names the one
 * partition to read (events are partitioned by time, store/event-partitions.ts) instead of
 * probing the primary key of every partition. An id without a time matches on the id alone.
 */
function atEventIdTime(eventId: string) {
  const time = eventIdTime(eventId);
  return <Q extends { where(column: 'timestamp', op: '=', value: number): Q }>(q: Q): Q => (time === undefined ? q : q.where('timestamp', '=', time));
}

export async function getEvent(store: Store, workspaceId: string, eventId: string): Promise<V4Event | undefined> {
  const payload = await getEventPayload(store, workspaceId, eventId);
  return payload === undefined ? undefined : (JSON.parse(payload) as V4Event);
}

/**
 * The stored JSON of one event of a workspace, as text (the Server API serves it without
 * re-serialising); with `environmentId`, only an event of that environment.
 */
export async function getEventPayload(
  store: Store,
  workspaceId: string,
  eventId: string,
  environmentId: string | null = null,
): Promise<string | undefined> {
  const row = await internalsOf(store)
    .db.selectFrom('events')
    .select('payload')
    .where('event_id', '=', eventId)
    .$call(atEventIdTime(eventId))
    .where('workspace_id', '=', workspaceId)
    .$if(environmentId !== null, (q) => q.where('environment_id', '=', environmentId!))
    .executeTakeFirst();
  return row?.payload;
}

/** The newest events of one visitor, newest first. */
export async function listRecentVisitorEvents(
  store: Store,
  opts: { workspaceId: string; visitorId: string; limit: number },
): Promise<V4Event[]> {
  const rows = await internalsOf(store)
    .db.selectFrom('events')
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
export async function countEvents(store: Store, workspaceId?: string): Promise<number> {
  let q = internalsOf(store).db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n'));
  if (workspaceId) q = q.where('workspace_id', '=', workspaceId);
  const row = await q.executeTakeFirstOrThrow();
  return Number(row.n);
}

/** What an update of an event starts from: its payload, environment and time (with `environmentId`: only in it). */
export async function findEventForUpdate(
  store: Store,
  workspaceId: string,
  eventId: string,
  environmentId: string | null = null,
): Promise<{ payload: string; environment_id: string; timestamp: number } | undefined> {
  return internalsOf(store)
    .db.selectFrom('events')
    .select(['payload', 'environment_id', 'timestamp'])
    .where('workspace_id', '=', workspaceId)
    .where('event_id', '=', eventId)
    .$call(atEventIdTime(eventId))
    .$if(environmentId !== null, (q) => q.where('environment_id', '=', environmentId!))
    .executeTakeFirst();
}

/**
 * Rewrites an event's payload and its mirrored columns, only if its payload is still
 * `previousPayload` (compare-and-set); false when a concurrent update came first.
 */
export async function replaceEventPayload(
  store: Store,
  opts: { workspaceId: string; eventId: string; timestamp: number; environmentId: string; previousPayload: string; event: V4Event },
): Promise<boolean> {
  const columns = eventColumns(opts.event, { workspaceId: opts.workspaceId, environmentId: opts.environmentId });
  return store.transaction(async (trx) => {
    const result = await internalsOf(trx)
      .db.updateTable('events')
      .set({ linked_id: columns.linked_id, suspect: columns.suspect, payload: columns.payload })
      .where('workspace_id', '=', opts.workspaceId)
      .where('event_id', '=', opts.eventId)
      // The event's time (from findEventForUpdate): the primary key, and its partition on PostgreSQL.
      .where('timestamp', '=', opts.timestamp)
      .where('payload', '=', opts.previousPayload)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return false;
    // Deliveries queued before the update keep the body they were queued with.
    await keepDeliveryBodies(trx, opts.eventId, opts.previousPayload);
    return true;
  });
}

/**
 * The time of one event of a visitor (the legacy visitor lookup's pagination point); with
 * `absorbedIds` (the IDs relinked to the visitor, visitor-links.ts), an event of one of them too.
 */
export async function findVisitorEventTimestamp(
  store: Store,
  opts: { workspaceId: string; visitorId: string; absorbedIds?: readonly string[]; eventId: string; environmentId?: string | null },
): Promise<number | undefined> {
  const row = await internalsOf(store)
    .db.selectFrom('events')
    .select(['timestamp'])
    .where('workspace_id', '=', opts.workspaceId)
    .where('visitor_id', 'in', [opts.visitorId, ...(opts.absorbedIds ?? [])])
    .where('event_id', '=', opts.eventId)
    .$call(atEventIdTime(opts.eventId))
    .$if(opts.environmentId != null, (q) => q.where('environment_id', '=', opts.environmentId!))
    .executeTakeFirst();
  return row?.timestamp;
}

type VisitorEventRow = { event_id: string; timestamp: number; linked_id: string | null; payload: string };

/** What scanVisitorEvents reads (see there). */
interface VisitorEventScan {
  workspaceId: string;
  visitorId: string;
  absorbedIds?: readonly string[];
  environmentId?: string | null;
  before?: number;
  after?: { timestamp: number; eventId: string };
  limit: number;
}

/**
 * A visitor's events newest first: strictly before `before` and after the (timestamp, event)
 * point `after`; with `environmentId`, only events of that environment. With `absorbedIds`
 * (the IDs relinked to the visitor), their events too: one bounded index range per ID, merged.
 */
export async function scanVisitorEvents(store: Store, opts: VisitorEventScan): Promise<VisitorEventRow[]> {
  if (store.engine !== 'postgres') return scanVisitorEventsIn(store, opts, { from: null, to: null }, opts.limit);
  // No time bound of its own: on PostgreSQL, window by window, newest first (timeWindows), so
  // that no statement plans and locks every partition of a long retention.
  const rows: VisitorEventRow[] = [];
  // Windows that start at or after this hold nothing for the page (`before`, `after`).
  const pageEnd = Math.min(opts.before ?? Infinity, opts.after ? opts.after.timestamp + 1 : Infinity);
  // Any list will do (the windows cover all time whatever it holds): the one kept for a while.
  for (const window of timeWindows(await keptPartitions(store))) {
    if (window.from !== null && window.from >= pageEnd) continue;
    rows.push(...(await scanVisitorEventsIn(store, opts, window, opts.limit - rows.length)));
    if (rows.length >= opts.limit) break;
  }
  return rows;
}

/** scanVisitorEvents within one time window, at most `limit` events. */
function scanVisitorEventsIn(store: Store, opts: VisitorEventScan, window: TimeWindow, limit: number): Promise<VisitorEventRow[]> {
  const { db } = internalsOf(store);
  const range = (visitorId: string) => {
    let scan = db
      .selectFrom('events')
      .select(['event_id', 'timestamp', 'linked_id', 'payload'])
      .where('workspace_id', '=', opts.workspaceId)
      .where('visitor_id', '=', visitorId);
    if (window.from !== null) scan = scan.where('timestamp', '>=', window.from);
    if (window.to !== null) scan = scan.where('timestamp', '<', window.to);
    if (opts.environmentId != null) scan = scan.where('environment_id', '=', opts.environmentId);
    if (opts.before !== undefined) scan = scan.where('timestamp', '<', opts.before);
    if (opts.after !== undefined) {
      const { timestamp, eventId } = opts.after;
      scan = scan
        .where('timestamp', '<=', timestamp)
        .where((eb) =>
          eb.or([eb('timestamp', '<', timestamp), eb.and([eb('timestamp', '=', timestamp), eb('event_id', '<', eventId)])]),
        );
    }
    return scan.orderBy('timestamp', 'desc').orderBy('event_id', 'desc').limit(limit);
  };
  const absorbed = opts.absorbedIds ?? [];
  if (absorbed.length === 0) return range(opts.visitorId).execute();
  const [first, ...rest] = [opts.visitorId, ...absorbed].map((id, i) => db.selectFrom(range(id).as(`v${i}`)).selectAll());
  const union = rest.reduce((all, part) => all.unionAll(part), first!);
  return db.selectFrom(union.as('merged')).selectAll().orderBy('timestamp', 'desc').orderBy('event_id', 'desc').limit(limit).execute();
}

/**
 * The environments a visitor has events in (an environment-scoped key may delete only its own
 * visitors); with `absorbedIds`, the environments of those IDs' events too.
 */
export async function visitorEnvironmentIds(store: Store, workspaceId: string, visitorId: string, absorbedIds: readonly string[] = []): Promise<string[]> {
  const rows = await internalsOf(store)
    .db.selectFrom('events')
    .select('environment_id')
    .distinct()
    .where('workspace_id', '=', workspaceId)
    .where('visitor_id', 'in', [visitorId, ...absorbedIds])
    .execute();
  return rows.map((r) => r.environment_id);
}

/**
 * PostgreSQL: makes the weekly partitions of `events` for `now`'s week and the weeks ahead that
 * do not exist yet (event-partitions.ts); returns their names. Nothing to do on SQLite.
 */
export async function maintainEventPartitions(store: Store, now: number): Promise<string[]> {
  return store.engine === 'postgres' ? ensureEventPartitions(internalsOf(store).db, now) : [];
}

/** Small batches keep each write transaction short, so ingestion is never blocked for long. */
export const PURGE_BATCH = 1000;

/** A retention cutoff for every workspace, or per workspace from its retention override. */
export type RetentionCutoff = number | ((workspace: { data_retention_days: number | null }) => number);

/**
/**
 * Deletes events with a timestamp before `cutoff` (or the workspace's, given its retention
 * override), and with them their webhook deliveries of any status (and those deliveries'
 * attempts): an expired event is neither kept in a delivery nor sent later. Returns how many
 * of each.
 *
 * SQLite: workspace by workspace, in batches, each a range of the (workspace, time) index
 * (events have no index on time alone: one index fewer to update on every insert). Each batch
 * is one transaction; between two the event loop takes a turn (SQLite runs statements
 * synchronously: requests are served in between).
 *
 * PostgreSQL (events partitioned by week, event-partitions.ts): first every partition whose
 * whole range is older than the earliest cutoff of any workspace (the longest retention) is
 * dropped with its rows (their deliveries deleted first), no event deleted one by one; then
 * each workspace's expired rows left in the partitions that straddle its cutoff (the boundary
 * week, the DEFAULT partition, a legacy partition, and for a workspace keeping less than the
 * longest retention, the weeks between) are deleted in batches, each one statement with its
 * deliveries. One process at a time runs this (a session advisory lock); another that finds it
 * held skips the pass and counts 0.
 */
export async function purgeEventsBefore(store: Store, cutoffOf: RetentionCutoff, batch = PURGE_BATCH): Promise<{ events: number; deliveries: number }> {
  const workspaces = await internalsOf(store).db.selectFrom('workspaces').select(['id', 'data_retention_days']).execute();
  const cutoffs = workspaces.map((w) => ({ workspaceId: w.id, cutoff: typeof cutoffOf === 'number' ? cutoffOf : cutoffOf(w) }));
  if (store.engine === 'postgres') {
    // The service's own period counts too: a partition may hold events of a workspace not listed.
    const earliest = typeof cutoffOf === 'number' ? cutoffOf : Math.min(cutoffOf({ data_retention_days: null }), ...cutoffs.map((c) => c.cutoff));
    return purgeOnPostgres(internalsOf(store).db, cutoffs, earliest, batch);
  }
  const total = { events: 0, deliveries: 0 };
  for (const { workspaceId, cutoff } of cutoffs) {
    for (;;) {
      const purged = await store.transaction(async (trx) => {
        const { db } = internalsOf(trx);
        const rows = await db
          .selectFrom('events')
          .select('event_id')
          .where('workspace_id', '=', workspaceId)
          .where('timestamp', '<', cutoff)
          .limit(batch)
          .execute();
        const ids = rows.map((r) => r.event_id);
        if (ids.length === 0) return { selected: 0, events: 0, deliveries: 0 };
        const deliveries = await deleteDeliveriesOfEvents(trx, ids);
        const result = await db.deleteFrom('events').where('event_id', 'in', ids).executeTakeFirst();
        return { selected: ids.length, events: Number(result.numDeletedRows), deliveries };
      });
      total.events += purged.events;
      total.deliveries += purged.deliveries;
      if (purged.selected < batch) break;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  return total;
}

async function purgeOnPostgres(
  db: Kysely<Database>,
  cutoffs: { workspaceId: string; cutoff: number }[],
  earliest: number,
  batch: number,
): Promise<{ events: number; deliveries: number }> {
  return db.connection().execute(async (conn) => {
    const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(${RETENTION_LOCK}) as locked`.execute(conn);
    if (!rows[0]?.locked) return { events: 0, deliveries: 0 };
    try {
      const total = { events: 0, deliveries: 0 };
      for (const partition of await listEventPartitions(conn)) {
        if (partition.isDefault || partition.to === null || partition.to > earliest) continue;
        // Counted for the job's log; an event stored into this old range meanwhile is dropped uncounted.
        const counted = await sql<{ n: number }>`select count(*) as n from ${sql.id(partition.name)}`.execute(conn);
        // Deliveries have no foreign key to the partitioned events: theirs go first (attempts cascade).
        const deliveries = await sql`delete from webhook_deliveries where event_id in (select event_id from ${sql.id(partition.name)})`.execute(conn);
        total.deliveries += Number(deliveries.numAffectedRows ?? 0);
        if (await dropEventPartition(conn, partition.name)) total.events += Number(counted.rows[0]?.n ?? 0);
      }
      for (const { workspaceId, cutoff } of cutoffs) {
        for (;;) {
          // One statement: a batch of expired events and their deliveries. Both name the time
          // range, so only partitions reaching below the cutoff are read.
          const { rows: counts } = await sql<{ events: string; deliveries: string }>`
            with doomed as (
              select event_id, "timestamp" from events
              where workspace_id = ${workspaceId} and "timestamp" < ${cutoff}
              limit ${batch}
            ), gone_deliveries as (
              delete from webhook_deliveries where event_id in (select event_id from doomed) returning 1
            ), gone_events as (
              delete from events e using doomed d
              where e.workspace_id = ${workspaceId} and e."timestamp" < ${cutoff}
                and e.event_id = d.event_id and e."timestamp" = d."timestamp"
              returning 1
            )
            select (select count(*) from gone_events) as events, (select count(*) from gone_deliveries) as deliveries`.execute(conn);
          const n = Number(counts[0]?.events ?? 0);
          total.events += n;
          total.deliveries += Number(counts[0]?.deliveries ?? 0);
          if (n < batch) break;
        }
      }
      return total;
    } finally {
      await sql`select pg_advisory_unlock(${RETENTION_LOCK})`.execute(conn);
    }
  });
}
