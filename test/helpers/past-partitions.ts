/**
 * PostgreSQL: empty partitions of `events` for the `weeks` weeks before its oldest one, as a
 * long retention keeps them (ten years: about 520). Returns how many partitions `events` has
 * then. The service's retention must keep them (3650 days), or its purge drops them.
 */
import { sql, type Kysely } from 'kysely';
import { listEventPartitions, PARTITION_SPAN_MS, partitionName } from '../../src/service/store/event-partitions.js';
import type { Database } from '../../src/service/store/schema.js';

export async function addPastWeekPartitions(db: Kysely<Database>, weeks: number): Promise<number> {
  const oldest = Math.min(...(await listEventPartitions(db)).flatMap((p) => (p.from === null ? [] : [p.from])));
  for (let week = 1; week <= weeks; week++) {
    const from = oldest - week * PARTITION_SPAN_MS;
    await sql`create table ${sql.id(partitionName(from))} partition of events for values from (${sql.lit(from)}) to (${sql.lit(from + PARTITION_SPAN_MS)})`.execute(db);
  }
  return (await listEventPartitions(db)).length;
}
