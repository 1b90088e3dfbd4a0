/**
 * The webhook outbox: deliveries are inserted with their event (events.ts), claimed by workers
 * under a lease, and settled after each attempt, which is logged in webhook_attempts.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { internalsOf, type Store } from './handle.js';
import { eventIdTime, newTimeOrderedId } from './ids.js';
import { prepareQuery, type ParamMarker } from './prepared-query.js';
import type { Database, DeliveryRows, WebhookAttemptsTable, WebhookDeliveriesTable, WebhookDeliveryPayloadsTable, WebhooksTable } from './schema.js';

/** What queueing a delivery takes; the rest of the row is derived. */
export interface NewDelivery {
  webhookId: string;
  eventId: string;
  /**
   * The body, when it is not the event's stored payload (a legacy webhook's v3 visit). Absent,
   * the delivery sends its event's payload, read when it is claimed: the event's JSON is not
   * written a second time per delivery.
   */
  payload?: string;
}

/** Deliveries are attempted for this long after queueing (or a resend), then marked failed. */
export const DELIVERY_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * A lease taken as deliveries are queued: their own process's worker sends them as soon as
 * their event is committed (webhooks/worker.ts `handOff`), and no other worker claims them
 * before `until`, the time after which they are claimable again if that process died.
 */
export interface DeliveryLease {
  owner: string;
  until: number;
}

export function deliveryRows(deliveries: readonly NewDelivery[], now: number, lease?: DeliveryLease): DeliveryRows {
  const rows: WebhookDeliveriesTable[] = [];
  const payloads: WebhookDeliveryPayloadsTable[] = [];
  for (const d of deliveries) {
    const id = newTimeOrderedId('whd', now);
    rows.push({
      id,
      webhook_id: d.webhookId,
      event_id: d.eventId,
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      give_up_at: now + DELIVERY_WINDOW_MS,
      leased_until: lease?.until ?? null,
      lease_owner: lease?.owner ?? null,
      created_at: now,
      delivered_at: null,
    });
    if (d.payload !== undefined) payloads.push({ delivery_id: id, payload: d.payload });
  }
  return { rows, payloads };
}

/** Every column of webhook_deliveries, in the order deliveryRows writes them. */
const DELIVERY_COLUMNS = Object.keys(deliveryRows([{ webhookId: '', eventId: '' }], 0).rows[0]!) as (keyof WebhookDeliveriesTable)[];

// One delivery per event and webhook, written with the event: compiled once (prepared-query.ts).
const insertDeliveryQuery = prepareQuery((db: Kysely<Database>, param) =>
  db.insertInto('webhook_deliveries').values(Object.fromEntries(DELIVERY_COLUMNS.map((column) => [column, param(column)])) as WebhookDeliveriesTable),
);
const insertPayloadQuery = prepareQuery((db: Kysely<Database>, param) =>
  db.insertInto('webhook_delivery_payloads').values({ delivery_id: param('delivery_id') as string, payload: param('payload') as string }),
);

/** For events.ts: writes deliveries on `store` (inside the event's transaction). */
export async function insertDeliveryRows(store: Store, deliveries: DeliveryRows): Promise<void> {
  for (const row of deliveries.rows) await insertDeliveryQuery(store, row);
  for (const payload of deliveries.payloads) await insertPayloadQuery(store, payload);
}

/** What sending a delivery needs of its webhook. */
export const SENDING_COLUMNS = ['id', 'url', 'status', 'signing_key', 'basic_auth_username', 'basic_auth_password'] as const;

/** A claimed delivery with what sending it needs of its webhook. */
export interface ClaimedDelivery {
  delivery: Pick<WebhookDeliveriesTable, 'id' | 'event_id' | 'attempts' | 'give_up_at'> & Pick<WebhookDeliveryPayloadsTable, 'payload'>;
  webhook: Pick<WebhooksTable, (typeof SENDING_COLUMNS)[number]>;
}

/**
 * Leases up to `limit` due deliveries to `owner` until `now + leaseMs`. One statement: on
 * PostgreSQL the inner select locks its rows FOR UPDATE SKIP LOCKED (concurrent workers take
 * different rows; a row claimed meanwhile is re-checked and dropped); on SQLite the UPDATE runs
 * under the database's single write lock. A lease that expired (its worker died) is claimable.
 */
export async function claimDueDeliveries(
  store: Store,
  opts: { owner: string; now: number; leaseMs: number; limit: number },
): Promise<ClaimedDelivery[]> {
  const { db } = internalsOf(store);
  let due = db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', opts.now)
    .where((eb) => eb.or([eb('leased_until', 'is', null), eb('leased_until', '<=', opts.now)]))
    .orderBy('next_attempt_at')
    .limit(opts.limit);
  if (store.engine === 'postgres') due = due.forUpdate().skipLocked();
  const claimed = await db
    .updateTable('webhook_deliveries')
    .set({ leased_until: opts.now + opts.leaseMs, lease_owner: opts.owner })
    .where('id', 'in', due)
    .returning(['id', 'webhook_id', 'event_id', 'attempts', 'give_up_at'])
    .execute();
  if (claimed.length === 0) return [];
  const webhooks = await db
    .selectFrom('webhooks')
    .select(SENDING_COLUMNS)
    .where('id', 'in', [...new Set(claimed.map((c) => c.webhook_id))])
    .execute();
  const payloads = await db
    .selectFrom('webhook_delivery_payloads')
    .select(['delivery_id', 'payload'])
    .where('delivery_id', 'in', claimed.map((c) => c.id))
    .execute();
  const webhookById = new Map(webhooks.map((w) => [w.id, w]));
  const payloadById = new Map(payloads.map((p) => [p.delivery_id, p.payload]));
  // The others send their event's stored payload.
  const eventIds = [...new Set(claimed.filter((c) => !payloadById.has(c.id)).map((c) => c.event_id))];
  const eventPayloads = new Map((await eventPayloadsById(store, eventIds)).map((e) => [e.event_id, e.payload]));
  return claimed.flatMap(({ webhook_id, ...delivery }) => {
    const webhook = webhookById.get(webhook_id);
    const payload = payloadById.get(delivery.id) ?? eventPayloads.get(delivery.event_id);
    // Deleted between the claim and these reads (its webhook, event or visitor): nothing to send.
    return webhook && payload !== undefined ? [{ delivery: { ...delivery, payload }, webhook }] : [];
  });
}

/**
 * The stored payloads of these events. Each id's time is the event's (ids.ts `eventIdTime`):
 * on PostgreSQL the times name the partitions to read. Ids without a time, or whose event was
 * not found at it, are looked up by id alone.
 */
async function eventPayloadsById(store: Store, eventIds: readonly string[]): Promise<{ event_id: string; payload: string }[]> {
  if (eventIds.length === 0) return [];
  const { db } = internalsOf(store);
  const byId = (ids: readonly string[]) => db.selectFrom('events').select(['event_id', 'payload']).where('event_id', 'in', ids);
  const times = eventIds.map(eventIdTime);
  const timed = eventIds.filter((_, i) => times[i] !== undefined);
  const rows = timed.length === 0 ? [] : await byId(timed).where('timestamp', 'in', [...new Set(times.filter((t) => t !== undefined))]).execute();
  const found = new Set(rows.map((r) => r.event_id));
  const rest = eventIds.filter((id) => !found.has(id));
  if (rest.length > 0) rows.push(...(await byId(rest).execute()));
  return rows;
}

/**
 * When an event's payload is replaced (a Server API update), in that transaction: its
 * deliveries that send the event's payload get a copy of `payload`, the old one they were
 * queued with, so that every attempt and resend of a delivery sends the same bytes.
 */
export async function keepDeliveryBodies(store: Store, eventId: string, payload: string): Promise<void> {
  const { db } = internalsOf(store);
  await db
    .insertInto('webhook_delivery_payloads')
    .columns(['delivery_id', 'payload'])
    .expression(
      db
        .selectFrom('webhook_deliveries')
        .select((eb) => ['id', eb.cast<string>(eb.val(payload), 'text').as('payload')])
        .where('event_id', '=', eventId)
        .where((eb) => eb.not(eb.exists(eb.selectFrom('webhook_delivery_payloads').select('delivery_id').whereRef('webhook_delivery_payloads.delivery_id', '=', 'webhook_deliveries.id')))),
    )
    .execute();
}

export type AttemptOutcome = { status: 'delivered' } | { status: 'failed' } | { status: 'retry'; at: number };

/** One attempt to log and the delivery state it leads to (see recordAttempts). */
export interface AttemptRecord {
  deliveryId: string;
  webhookId: string;
  attempt: Pick<WebhookAttemptsTable, 'attempted_at' | 'http_status' | 'latency_ms' | 'error'>;
  outcome: AttemptOutcome;
}

/** What recording an attempt did to its delivery. */
export type Settlement = 'settled' | 'lease-lost' | 'deleted';

/** Each settled delivery's new state, as the settling statement reads it from JSON. */
interface DeliveryState {
  id: string;
  status: 'pending' | 'delivered' | 'failed';
  retry_at: number | null;
  delivered_at: number | null;
}

/**
 * The settling UPDATE and the attempts' INSERT take their rows as one JSON array each
 * (`states`, `attempts`): their text is the same for any number of rows, so each is compiled
 * once (prepared-query.ts) rather than once per group size, as a list of bound rows would be.
 * SQLite would drive the UPDATE's join from the status index, every pending delivery (the whole
 * backlog) against the list; `+` keeps the index out, so each listed delivery is found by its
 * id. PostgreSQL joins by id as it is (and has no unary + on text).
 *
 * settleQuery builds the UPDATE for one engine: its JSON array as rows `s` (`statesAsRows`)
 * and the status column as that engine compares it.
 */
const settleQuery = (statesAsRows: (p: ParamMarker) => RawBuilder<unknown>, pendingStatus: RawBuilder<unknown>) =>
  prepareQuery<{ id: string }>(
    (_db, p) => sql`update webhook_deliveries set
        attempts = attempts + 1,
        status = s.status,
        next_attempt_at = coalesce(s.retry_at, webhook_deliveries.next_attempt_at),
        delivered_at = s.delivered_at,
        leased_until = null,
        lease_owner = null
      from ${statesAsRows(p)}
      where webhook_deliveries.id = s.id and webhook_deliveries.lease_owner = ${p('owner')} and ${pendingStatus} = 'pending'
      returning webhook_deliveries.id`,
  );
const settleOnSqlite = settleQuery(
  (p) => sql`(select value ->> 'id' as id, value ->> 'status' as status, value ->> 'retry_at' as retry_at, value ->> 'delivered_at' as delivered_at
    from json_each(${p('states')})) as s`,
  sql`+webhook_deliveries.status`,
);
const settleOnPostgres = settleQuery(
  (p) => sql`json_to_recordset(cast(${p('states')} as json)) as s(id text, status text, retry_at bigint, delivered_at bigint)`,
  sql`webhook_deliveries.status`,
);
const ATTEMPT_COLUMNS = ['id', 'delivery_id', 'webhook_id', 'attempted_at', 'http_status', 'latency_ms', 'error'] as const satisfies readonly (keyof WebhookAttemptsTable)[];
const insertAttemptsOnSqlite = prepareQuery(
  (db, p) =>
    db
      .insertInto('webhook_attempts')
      .columns(ATTEMPT_COLUMNS)
      .expression(sql`select ${sql.join(ATTEMPT_COLUMNS.map((column) => sql`value ->> ${sql.lit(column)}`))} from json_each(${p('attempts')})`),
);
const insertAttemptsOnPostgres = prepareQuery(
  (db, p) =>
    db
      .insertInto('webhook_attempts')
      .columns(ATTEMPT_COLUMNS)
      .expression(sql`select ${sql.join(ATTEMPT_COLUMNS.map((column) => sql.ref(column)))} from json_populate_recordset(null::webhook_attempts, cast(${p('attempts')} as json))`),
);

/**
 * Logs attempts and settles their deliveries, all in one transaction: delivered, failed, or
 * pending again at `at` with the lease released. A delivery is settled only while `owner`
 * still holds its lease; the result says, in order, what happened to each: settled, its lease
 * expired and another worker took it over (the attempt is still logged), or it was deleted
 * meanwhile (its webhook, event or visitor deleted, or purged: nothing to log it against).
 *
 * A whole group is one UPDATE and one INSERT, not two statements per delivery.
 */
export async function recordAttempts(store: Store, owner: string, records: readonly AttemptRecord[]): Promise<Settlement[]> {
  if (records.length === 0) return [];
  const onSqlite = store.engine === 'sqlite';
  return store.transaction(async (trx) => {
    const states = records.map(({ deliveryId, attempt, outcome }): DeliveryState => ({
      id: deliveryId,
      status: outcome.status === 'retry' ? 'pending' : outcome.status,
      retry_at: outcome.status === 'retry' ? outcome.at : null,
      delivered_at: outcome.status === 'delivered' ? attempt.attempted_at : null,
    }));
    const settledRows = await (onSqlite ? settleOnSqlite : settleOnPostgres)(trx, { states: JSON.stringify(states), owner });
    const settled = new Set(settledRows.map((row) => row.id));
    // Not settled (rare): one lookup tells a lost lease from a deleted delivery, whose attempt
    // row would break the foreign key and with it the whole group.
    const unsettled = records.filter((r) => !settled.has(r.deliveryId)).map((r) => r.deliveryId);
    const existing = new Set(
      unsettled.length === 0 ? [] : (await internalsOf(trx).db.selectFrom('webhook_deliveries').select('id').where('id', 'in', unsettled).execute()).map((r) => r.id),
    );
    const results = records.map(({ deliveryId }): Settlement => (settled.has(deliveryId) ? 'settled' : existing.has(deliveryId) ? 'lease-lost' : 'deleted'));
    // The attempt happened either way: it is logged even when another worker owns the delivery now.
    const attempts = records.flatMap(({ deliveryId, webhookId, attempt }, i): WebhookAttemptsTable[] =>
      results[i] === 'deleted' ? [] : [{ id: newTimeOrderedId('wha', attempt.attempted_at), delivery_id: deliveryId, webhook_id: webhookId, ...attempt }],
    );
    if (attempts.length > 0) await (onSqlite ? insertAttemptsOnSqlite : insertAttemptsOnPostgres)(trx, { attempts: JSON.stringify(attempts) });
    return results;
  });
}

export async function getDelivery(store: Store, id: string): Promise<WebhookDeliveriesTable | undefined> {
  return internalsOf(store).db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The deliveries of one webhook, newest first. */
export async function listDeliveries(store: Store, webhookId: string, limit = 100): Promise<WebhookDeliveriesTable[]> {
  return internalsOf(store)
    .db.selectFrom('webhook_deliveries')
    .selectAll()
    .where('webhook_id', '=', webhookId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** The attempt log of one webhook, newest first, with each attempt's event. */
export async function listAttempts(
  store: Store,
  webhookId: string,
  window: { offset: number; limit: number } = { offset: 0, limit: 100 },
): Promise<(WebhookAttemptsTable & { event_id: string })[]> {
  return internalsOf(store)
    .db.selectFrom('webhook_attempts')
    .innerJoin('webhook_deliveries', 'webhook_deliveries.id', 'webhook_attempts.delivery_id')
    .selectAll('webhook_attempts')
    .select('webhook_deliveries.event_id')
    .where('webhook_attempts.webhook_id', '=', webhookId)
    .orderBy('webhook_attempts.attempted_at', 'desc')
    .orderBy('webhook_attempts.id', 'desc')
    .limit(window.limit)
    .offset(window.offset)
    .execute();
}

/**
 * Queues a delivery of `webhookId` again, due now with a fresh 24 h window, whatever its state
 * (a delivered one is sent once more). Returns it, or undefined when it does not exist.
 */
export async function resendDelivery(
  store: Store,
  webhookId: string,
  deliveryId: string,
  now: number,
): Promise<WebhookDeliveriesTable | undefined> {
  const result = await internalsOf(store)
    .db.updateTable('webhook_deliveries')
    // The lease is dropped too, so a send in flight cannot settle the resent delivery.
    .set({ status: 'pending', next_attempt_at: now, give_up_at: now + DELIVERY_WINDOW_MS, delivered_at: null, leased_until: null, lease_owner: null })
    .where('id', '=', deliveryId)
    .where('webhook_id', '=', webhookId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0 ? getDelivery(store, deliveryId) : undefined;
}

/**
 * Deletes the deliveries (any status) of these events and, by cascade, their attempts; returns
 * how many deliveries. For every deletion of events, in its transaction: a delivery sends its
 * event (or a copy of it), which must not outlive it nor be sent after it was deleted.
 */
export async function deleteDeliveriesOfEvents(store: Store, eventIds: readonly string[]): Promise<number> {
  if (eventIds.length === 0) return 0;
  const result = await internalsOf(store).db.deleteFrom('webhook_deliveries').where('event_id', 'in', eventIds).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Deletes the deliveries (any status) of every stored event of a visitor, with their attempts
 * (cascade); returns how many. Before the events themselves, in the same transaction.
 */
export async function deleteDeliveriesOfVisitor(store: Store, workspaceId: string, visitorId: string): Promise<number> {
  const { db } = internalsOf(store);
  const events = db.selectFrom('events').select('event_id').where('workspace_id', '=', workspaceId).where('visitor_id', '=', visitorId);
  const result = await db.deleteFrom('webhook_deliveries').where('event_id', 'in', events).executeTakeFirst();
  return Number(result.numDeletedRows);
}

const SETTLED = ['delivered', 'failed'] as const;

/** Deliveries deleted per statement of the settled purge (each holds an event's JSON, and its attempts go too). */
export const SETTLED_PURGE_BATCH = 1000;

/**
 * Deletes settled (delivered or failed) deliveries whose last attempt was due before `before`,
 * with their attempts (cascade); returns how many. In batches of `batch`, each its own short
 * statement found by the (status, next_attempt_at) index, with a turn of the event loop between
 * two (SQLite runs each statement synchronously: requests are served in between). The outer
 * conditions repeat the inner ones: on PostgreSQL a delivery resent meanwhile (pending again,
 * due now) is re-checked and kept.
 */
export async function purgeSettledDeliveries(store: Store, before: number, batch = SETTLED_PURGE_BATCH): Promise<number> {
  const { db } = internalsOf(store);
  let total = 0;
  for (;;) {
    const ids = db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', 'in', SETTLED)
      .where('next_attempt_at', '<', before)
      .limit(batch);
    const result = await db
      .deleteFrom('webhook_deliveries')
      .where('id', 'in', ids)
      .where('status', 'in', SETTLED)
      .where('next_attempt_at', '<', before)
      .executeTakeFirst();
    const n = Number(result.numDeletedRows);
    total += n;
    if (n < batch) return total;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
