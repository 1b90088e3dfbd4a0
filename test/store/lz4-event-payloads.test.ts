/**
 * Migration 016 on a real PostgreSQL: event payloads are compressed with LZ4 in the parent
 * `events`, in every partition a start makes and in those made later; reverting it gives the
 * server's default back, and payloads stored either way read back unchanged.
 */
import { Migrator, sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { listEventPartitions, PARTITION_SPAN_MS, supportsLz4 } from '../../src/service/store/event-partitions.js';
import { getEventPayload, insertEvent, maintainEventPartitions } from '../../src/service/store/events.js';
import { kyselyOf } from '../../src/service/store/index.js';
import { migrationProvider } from '../../src/service/store/migrations/index.js';
import type { Database } from '../../src/service/store/schema.js';
import { freshStores } from '../helpers/fresh-stores.js';
import { makeEvent, T0 } from '../server-api/fixtures.js';

/** The compression method of `payload` in each table of `events` (the parent and its partitions): 'l' LZ4, '' the default. */
async function payloadCompression(db: Kysely<Database>): Promise<Record<string, string>> {
  const tables = ['events', ...(await listEventPartitions(db)).map((p) => p.name)];
  const { rows } = await sql<{ name: string; method: string }>`
    select c.relname as name, a.attcompression as method from pg_attribute a join pg_class c on c.oid = a.attrelid
    where a.attname = 'payload' and c.relname in (${sql.join(tables)})`.execute(db);
  return Object.fromEntries(rows.map((r) => [r.name, r.method]));
}

/** How each stored event's payload is compressed, by event id. */
async function storedCompression(db: Kysely<Database>): Promise<Record<string, string | null>> {
  const { rows } = await sql<{ id: string; method: string | null }>`select event_id as id, pg_column_compression(payload) as method from events`.execute(db);
  return Object.fromEntries(rows.map((r) => [r.id, r.method]));
}

describe('migration 016-lz4-event-payloads (postgres)', () => {
  const openFresh = freshStores();
  const ids = { workspaceId: 'ws_1', environmentId: 'ae_1' };
  // A payload large enough to be compressed (PostgreSQL compresses rows over about 2 KB).
  const bigEvent = (time: number) => makeEvent(time, 'v', { url: `https://shop.example/search?q=${'tessera '.repeat(500)}` });

  it('compresses event payloads with LZ4 in every partition, those made later too; reverted, with the default', async () => {
    const { store } = await openFresh('postgres');
    const db = kyselyOf(store);
    // This machine's PostgreSQL (Debian's 15) has LZ4; elsewhere the migration changes nothing.
    expect(await supportsLz4(db)).toBe(true);
    await store.migrate();
    await maintainEventPartitions(store, T0);
    const made = await payloadCompression(db);
    expect(Object.keys(made).length).toBeGreaterThanOrEqual(5);
    for (const method of Object.values(made)) expect(method).toBe('l');

    const lz4Event = bigEvent(T0);
    await insertEvent(store, lz4Event, ids);
    expect(await storedCompression(db)).toEqual({ [lz4Event.event_id]: 'lz4' });
    // A partition made weeks later takes the parent's compression.
    const later = T0 + 5 * PARTITION_SPAN_MS;
    expect(await maintainEventPartitions(store, later)).not.toEqual([]);
    for (const method of Object.values(await payloadCompression(db))) expect(method).toBe('l');

    const migrator = new Migrator({ db, provider: migrationProvider });
    expect((await migrator.migrateTo('015-sqlite-time-index')).error).toBeUndefined();
    for (const method of Object.values(await payloadCompression(db))) expect(method).toBe('');
    const pglzEvent = bigEvent(T0 + 1000);
    await insertEvent(store, pglzEvent, ids);
    expect(await storedCompression(db)).toEqual({ [lz4Event.event_id]: 'lz4', [pglzEvent.event_id]: 'pglz' });

    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    for (const method of Object.values(await payloadCompression(db))) expect(method).toBe('l');
    // Both read back as they were written.
    expect(JSON.parse((await getEventPayload(store, 'ws_1', lz4Event.event_id))!)).toEqual(lz4Event);
    expect(JSON.parse((await getEventPayload(store, 'ws_1', pglzEvent.event_id))!)).toEqual(pglzEvent);
  });
});
