/**
 * `webhook_deliveries(event_id)`: the deliveries of given events, found by index, so that
 * deleting events (retention, visitor deletion) deletes their deliveries (each holds a copy of
 * the event) in the same transaction.
 *
 * Before this migration those deletions left the deliveries behind: copies of events that no
 * longer exist, some perhaps still pending. They are deleted here (their attempts go with them,
 * cascade), so none is sent after the upgrade.
 */
import { sql, type Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').column('event_id').execute();
  await db
    .deleteFrom('webhook_deliveries')
    .where((eb) =>
      eb.not(eb.exists(eb.selectFrom('events').select(sql`1`.as('one')).whereRef('events.event_id', '=', 'webhook_deliveries.event_id'))),
    )
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_event').ifExists().execute();
}
