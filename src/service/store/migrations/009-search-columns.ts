/**
 * `events.ip_sort`: the IP address as a sortable key (ip-sort.ts), so a CIDR filter of the
 * Server API search is one range comparison in SQL instead of rows streamed to the service
 * and tested there. Existing rows are filled in batches. The (workspace, time, ip_sort) index
 * lets a CIDR search walk its time window checking the range in the index: the column was
 * added last, so on SQLite reading it from the row would mean reading the payload before it.
 */
import type { Kysely } from 'kysely';
import { ipSortKey } from '../ip-sort.js';

const BATCH = 1000;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').addColumn('ip_sort', 'text').execute();
  await db.schema.createIndex('events_workspace_time_ip').on('events').columns(['workspace_id', 'timestamp', 'ip_sort']).execute();
  let after = '';
  for (;;) {
    const rows: { event_id: string; ip_address: string | null }[] = await db
      .selectFrom('events')
      .select(['event_id', 'ip_address'])
      .where('event_id', '>', after)
      .where('ip_address', 'is not', null)
      .orderBy('event_id')
      .limit(BATCH)
      .execute();
    for (const row of rows) {
      await db.updateTable('events').set({ ip_sort: ipSortKey(row.ip_address) }).where('event_id', '=', row.event_id).execute();
    }
    if (rows.length < BATCH) return;
    after = rows[rows.length - 1]!.event_id;
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('events_workspace_time_ip').ifExists().execute();
  await db.schema.alterTable('events').dropColumn('ip_sort').execute();
}
