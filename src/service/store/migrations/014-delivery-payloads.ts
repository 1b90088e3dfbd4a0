/**
 * A webhook delivery's body moves to a table of its own, `webhook_delivery_payloads`, written
 * once with the delivery and never changed. The delivery row keeps only its small, changing
 * state (lease, status, attempts): SQLite rewrites a whole row on every UPDATE, and each
 * delivery is updated at least twice (claimed, then settled), so with the event's JSON in the
 * row every delivery wrote a few KiB to the write-ahead log three times.
 *
 * Existing bodies are copied over; the body goes with its delivery (cascade).
 */
import { sql, type Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_delivery_payloads')
    .addColumn('delivery_id', 'text', (c) => c.primaryKey().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('payload', 'text', (c) => c.notNull())
    .execute();
  await db
    .insertInto('webhook_delivery_payloads')
    .columns(['delivery_id', 'payload'])
    .expression(db.selectFrom('webhook_deliveries').select(['id', 'payload']))
    .execute();
  await db.schema.alterTable('webhook_deliveries').dropColumn('payload').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('payload', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db
    .updateTable('webhook_deliveries')
    .set({ payload: sql`(select payload from webhook_delivery_payloads where delivery_id = webhook_deliveries.id)` })
    .execute();
  await db.schema.dropTable('webhook_delivery_payloads').execute();
}
