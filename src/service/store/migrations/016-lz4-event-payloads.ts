/**
 * PostgreSQL only: new event payloads are compressed with LZ4 rather than PostgreSQL's default,
 * pglz, where the server supports it (PostgreSQL 14 or later built with lz4, as Debian's is;
 * otherwise nothing changes). An event's JSON (about 3.4 KB) is
 * always compressed on its way out of line (TOAST), and pglz is slow at it: with the payloads of
 * the service benchmark's events (2026-12-02, `psql`, 20,000-80,000 rows a statement), storing
 * one took 85-95 µs of PostgreSQL's time with pglz and 35-44 µs with LZ4 (as long as storing it
 * uncompressed), reading one back 23 and 16 µs; LZ4 keeps 2,322 bytes of the 3,400 where pglz
 * keeps 2,229. Payloads already stored keep their compression (PostgreSQL reads both);
 * partitions made from now on take the parent's (createEventPartition).
 */
import type { Kysely } from 'kysely';
import { isPostgres } from './engine.js';
import { listEventPartitions, setPayloadCompression, supportsLz4 } from '../event-partitions.js';

/** `events` and each of its partitions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
const eventTables = async (db: Kysely<any>) => ['events', ...(await listEventPartitions(db)).map((p) => p.name)];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db) && (await supportsLz4(db))) await setPayloadCompression(db, await eventTables(db), 'lz4');
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db) && (await supportsLz4(db))) await setPayloadCompression(db, await eventTables(db), 'default');
}
