/**
 * Stored identification events: the full v4 event as JSON plus the columns that search,
 * filters and counters use. The columns always mirror the payload: `eventColumns` derives
 * them, and every writer (insert here, PATCH in the Server API) goes through it.
 */
import { sql, type Kysely } from 'kysely';
import type { V4Event } from '../../events/v4-event.js';
import { commitTogether, groupWriter } from './group-commit.js';
import { internalsOf, type Store } from './handle.js';
import { ipSortKey } from './ip-sort.js';
import { prepareQuery } from './prepared-query.js';
import type { Database, EventsTable, WebhookDeliveriesTable } from './schema.js';
import { deliveryRows, insertDeliveryRows, type NewDelivery } from './webhook-deliveries.js';
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
    payload: JSON.stringify(event),
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
  deliveries: WebhookDeliveriesTable[];
}

/** Writes events and their deliveries in one transaction (or statement): never one without the other. */
async function writeEvents(store: Store, writes: EventWrite[]): Promise<void> {
  const { db } = internalsOf(store);
  const deliveries = writes.flatMap((w) => w.deliveries);
  if (writes.length === 1 && deliveries.length === 0) {
    await insertEventQuery(store, writes[0]!.row);
  } else if (deliveries.length === 0) {
    await db.insertInto('events').values(writes.map((w) => w.row)).execute();
  } else if (db.isTransaction || store.engine === 'sqlite') {
    for (const w of writes) await insertEventQuery(store, w.row);
    await insertDeliveryRows(store, deliveries);
  } else {
    // PostgreSQL outside a transaction: one statement (a data-modifying CTE) is atomic and
    // costs one round trip, where BEGIN ... COMMIT would cost three more.
    await db
      .with('stored_events', (cte) => cte.insertInto('events').values(writes.map((w) => w.row)))
      .insertInto('webhook_deliveries')
      .values(deliveries)
      .execute();
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
 * the deliveries come as one JSON array (`deliveries`, possibly empty), so that the statement's
 * text is the same for every visit and compiles once.
 */
const insertEventRow: VisitorStatement = (qc, p) =>
  qc.insertInto('events').values(Object.fromEntries(EVENT_COLUMNS.map((column) => [column, p(`event_${column}`)])) as EventsTable);
const insertDeliveriesFromJson: VisitorStatement = (qc, p) =>
  qc
    .insertInto('webhook_deliveries')
    .expression(sql`select * from json_populate_recordset(null::webhook_deliveries, cast(${p('deliveries')} as json))`);
const withEvent = (kind: VisitorWrite['kind']) => preparePostgresWrites([...POSTGRES_VISITOR_WRITES[kind], insertEventRow, insertDeliveriesFromJson]);
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
    const eventValues = Object.fromEntries(Object.entries(write.row).map(([column, value]) => [`event_${column}`, value]));
    await visitWithEventOnPostgres[visitor.kind](store, { ...visitor.values, ...eventValues, deliveries: JSON.stringify(write.deliveries) });
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
 */
export async function insertEvent(
  store: Store,
  event: V4Event,
  ids: { workspaceId: string; environmentId: string; requestHash?: string | null },
  opts: { deliveries?: readonly NewDelivery[]; now?: number; visitor?: VisitorWrite } = {},
): Promise<void> {
  const write: EventWrite = {
    row: eventColumns(event, ids),
    deliveries: deliveryRows(opts.deliveries ?? [], opts.now ?? event.timestamp),
  };
  if (opts.visitor) await writeVisitWithEvent(store, opts.visitor, write);
  else if (internalsOf(store).db.isTransaction) await writeEvents(store, [write]);
  else if (store.engine === 'sqlite') await commitTogether(store, (trx) => writeEvents(trx, [write]));
  else await insertOnPostgres(store, write);
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
    .$if(environmentId !== null, (q) => q.where('environment_id', '=', environmentId!))
    .executeTakeFirst();
}

/**
 * Rewrites an event's payload and its mirrored columns, only if its payload is still
 * `previousPayload` (compare-and-set); false when a concurrent update came first.
 */
export async function replaceEventPayload(
  store: Store,
  opts: { workspaceId: string; eventId: string; environmentId: string; previousPayload: string; event: V4Event },
): Promise<boolean> {
  const columns = eventColumns(opts.event, { workspaceId: opts.workspaceId, environmentId: opts.environmentId });
  const result = await internalsOf(store)
    .db.updateTable('events')
    .set({ linked_id: columns.linked_id, suspect: columns.suspect, payload: columns.payload })
    .where('workspace_id', '=', opts.workspaceId)
    .where('event_id', '=', opts.eventId)
    .where('payload', '=', opts.previousPayload)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
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
    .$if(opts.environmentId != null, (q) => q.where('environment_id', '=', opts.environmentId!))
    .executeTakeFirst();
  return row?.timestamp;
}

/**
 * A visitor's events newest first: strictly before `before` and after the (timestamp, event)
 * point `after`; with `environmentId`, only events of that environment. With `absorbedIds`
 * (the IDs relinked to the visitor), their events too: one bounded index range per ID, merged.
 */
export async function scanVisitorEvents(
  store: Store,
  opts: {
    workspaceId: string;
    visitorId: string;
    absorbedIds?: readonly string[];
    environmentId?: string | null;
    before?: number;
    after?: { timestamp: number; eventId: string };
    limit: number;
  },
): Promise<{ event_id: string; timestamp: number; linked_id: string | null; payload: string }[]> {
  const { db } = internalsOf(store);
  const range = (visitorId: string) => {
    let scan = db
      .selectFrom('events')
      .select(['event_id', 'timestamp', 'linked_id', 'payload'])
      .where('workspace_id', '=', opts.workspaceId)
      .where('visitor_id', '=', visitorId);
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
    return scan.orderBy('timestamp', 'desc').orderBy('event_id', 'desc').limit(opts.limit);
  };
  const absorbed = opts.absorbedIds ?? [];
  if (absorbed.length === 0) return range(opts.visitorId).execute();
  const [first, ...rest] = [opts.visitorId, ...absorbed].map((id, i) => db.selectFrom(range(id).as(`v${i}`)).selectAll());
  const union = rest.reduce((all, part) => all.unionAll(part), first!);
  return db.selectFrom(union.as('merged')).selectAll().orderBy('timestamp', 'desc').orderBy('event_id', 'desc').limit(opts.limit).execute();
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

/** Small batches keep each write transaction short, so ingestion is never blocked for long. */
const PURGE_BATCH = 5000;

/**
 * Deletes events with a timestamp before `cutoff` (or the workspace's, given its retention
 * override); returns how many. Workspace by workspace,
 * so each batch is a range of the (workspace, time) index (events have no index on time
 * alone: one index fewer to update on every insert).
 */
export async function purgeEventsBefore(
  store: Store,
  cutoffOf: number | ((workspace: { data_retention_days: number | null }) => number),
): Promise<number> {
  const { db } = internalsOf(store);
  const workspaces = await db.selectFrom('workspaces').select(['id', 'data_retention_days']).execute();
  let total = 0;
  for (const workspace of workspaces) {
    const id = workspace.id;
    const cutoff = typeof cutoffOf === 'number' ? cutoffOf : cutoffOf(workspace);
    for (;;) {
      const batch = db
        .selectFrom('events')
        .select('event_id')
        .where('workspace_id', '=', id)
        .where('timestamp', '<', cutoff)
        .limit(PURGE_BATCH);
      const result = await db.deleteFrom('events').where('event_id', 'in', batch).executeTakeFirst();
      const n = Number(result.numDeletedRows);
      total += n;
      if (n < PURGE_BATCH) break;
    }
  }
  return total;
}
