/**
 * PostgreSQL: `events` is partitioned by RANGE on `timestamp` (migration 010), one partition per
 * week (Monday 00:00 UTC to the next, `events_p20261123`), plus
 * - `events_default`, the DEFAULT partition: an event whose week has no partition (older than
 *   the oldest one, or further ahead than the partitions made in advance) is stored there,
 *   never refused;
 * - `events_legacy`, on a database that had events before migration 010: the old table,
 *   attached as is for every time before the week after the migration (no copy at upgrade).
 *
 * Why weeks: retention is counted in days (1 to 3650, 90 by default), and a partition is
 * dropped once all of it is past the cutoff, so narrower partitions would drop expired events
 * sooner. But retention deletes the expired rows of the partition the cutoff falls in anyway,
 * as the cutoff moves through it (the purge runs every ten seconds and is exact), so the width
 * barely changes how many rows are deleted one by one; what it changes is how many partitions
 * each statement plans. Identification reads the last 24 hours: with days that is always two
 * partitions (measured: about 0.15 ms more PostgreSQL CPU per identification than one), with
 * weeks one, six days out of seven. The default 7-day search reads two weeks instead of eight
 * days, and a statement without a time bound plans about 17 partitions at 90 days of
 * retention, 525 at the maximum of 3650 days (over 3,650 with days): the v3 visitor history
 * reads window by window (timeWindows).
 *
 * Partitions are made PARTITIONS_AHEAD weeks in advance, at start and by the background job,
 * as a table of their own then ATTACHed: ATTACH takes SHARE UPDATE EXCLUSIVE on `events`
 * (inserts and reads go on; CREATE TABLE ... PARTITION OF would take ACCESS EXCLUSIVE). Rows
 * the DEFAULT partition holds for that week are moved into the new partition in the same
 * transaction. DROP of an expired partition needs ACCESS EXCLUSIVE on `events` for a moment:
 * it waits at most DDL_LOCK_TIMEOUT_MS for running statements (it would hold up every insert
 * queued behind it meanwhile) and otherwise gives up until the next pass. Every change of the
 * partition set holds a transaction-level advisory lock, so several service processes never
 * make or drop the same partition; one that finds the lock taken skips the work, which the
 * holder is doing.
 *
 * Each partition's indexes are named after the parent's (`events_workspace_time_p20261123`),
 * so plans read like the schema.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

export const DAY_MS = 24 * 60 * 60 * 1000;
/** The range of one partition: a week. */
export const PARTITION_SPAN_MS = 7 * DAY_MS;
/** Partitions kept ready after the current week's (a service down longer fills the DEFAULT partition meanwhile). */
export const PARTITIONS_AHEAD = 2;
/** 1970-01-05, the first Monday after the epoch (a Thursday): weeks start on Mondays. */
const FIRST_MONDAY_MS = 4 * DAY_MS;
/** How long partition DDL may wait for a lock on `events` before it gives up until the next pass. */
export const DDL_LOCK_TIMEOUT_MS = 500;

export const DEFAULT_PARTITION = 'events_default';
export const LEGACY_PARTITION = 'events_legacy';

/** Advisory lock keys (two int4 keys: this service, then what): the partition set, and the retention pass. */
const LOCK_SPACE = 0x7e55e7a;
export const PARTITION_DDL_LOCK = sql`${sql.lit(LOCK_SPACE)}, 1`;
export const RETENTION_LOCK = sql`${sql.lit(LOCK_SPACE)}, 2`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- also used by migration 010, which runs on Kysely<any>
type Db = Kysely<Database> | Kysely<any>;

/** One partition of `events`: `from` inclusive, `to` exclusive; null for MINVALUE / MAXVALUE. */
export interface EventPartition {
  name: string;
  isDefault: boolean;
  from: number | null;
  to: number | null;
}

/** Where the partition holding time `t` starts: Monday 00:00 UTC of its week. */
export const partitionStart = (t: number): number =>
  Math.floor((t - FIRST_MONDAY_MS) / PARTITION_SPAN_MS) * PARTITION_SPAN_MS + FIRST_MONDAY_MS;

/** `events_p20261123` for the partition starting at `start`. */
export function partitionName(start: number): string {
  return `events_p${new Date(start).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

const BOUND = /^FOR VALUES FROM \((MINVALUE|'?(-?\d+)'?)\) TO \((MAXVALUE|'?(-?\d+)'?)\)$/;

/** The partitions of `events` with their bounds (empty when `events` is not partitioned). */
export async function listEventPartitions(db: Db): Promise<EventPartition[]> {
  const { rows } = await sql<{ name: string; bound: string }>`
    select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
    from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = to_regclass('events')
    order by c.relname`.execute(db);
  return rows.map(({ name, bound }) => {
    if (bound === 'DEFAULT') return { name, isDefault: true, from: null, to: null };
    const m = BOUND.exec(bound);
    if (!m) throw new Error(`unexpected bound of partition ${name}: ${bound}`);
    return { name, isDefault: false, from: m[2] === undefined ? null : Number(m[2]), to: m[4] === undefined ? null : Number(m[4]) };
  });
}

/**
 * Ranged partitions one statement without a time bound of its own may cover (timeWindows).
 * A statement over `events` plans and locks every partition its time range can reach, and
 * each partition's indexes: about 4,000 locks over 500 weekly partitions (ten years of
 * retention), most of PostgreSQL's lock table at its defaults (64 per transaction times 100
 * connections). 24 weekly partitions are the default retention's (13 weeks), the weeks made
 * ahead and some slack: one window there.
 */
export const PARTITIONS_PER_WINDOW = 24;

/** A time range, `from` inclusive, `to` exclusive; null is unbounded. */
export interface TimeWindow {
  from: number | null;
  to: number | null;
}

/**
 * Time windows, newest first, that together cover all time without overlap, each reaching at
 * most PARTITIONS_PER_WINDOW of `partitions`' ranged ones (pure). The newest is open upwards and
 * the oldest downwards, so a statement run over every window in turn reads what one statement
 * without a time bound would, whatever partitions were made or dropped since `partitions` was
 * listed (only the lock count per statement depends on it).
 */
export function timeWindows(partitions: readonly EventPartition[]): TimeWindow[] {
  const starts = partitions.flatMap((p) => (p.isDefault || p.from === null ? [] : [p.from])).sort((a, b) => b - a);
  const windows: TimeWindow[] = [];
  let to: number | null = null;
  for (let i = PARTITIONS_PER_WINDOW - 1; i < starts.length - 1; i += PARTITIONS_PER_WINDOW) {
    windows.push({ from: starts[i]!, to });
    to = starts[i]!;
  }
  windows.push({ from: null, to });
  return windows;
}

/** A ranged partition holds part of [from, to). */
const overlaps = (p: EventPartition, from: number, to: number) =>
  !p.isDefault && (p.from === null || p.from < to) && (p.to === null || p.to > from);

/**
 * The ranged partitions that together hold every row of [from, to), oldest first (pure); null
 * when part of the range has no ranged partition (its rows are in DEFAULT).
 */
export function partitionsCovering(partitions: readonly EventPartition[], from: number, to: number): string[] | null {
  const ranged = partitions.filter((p) => overlaps(p, from, to)).sort((a, b) => (a.from ?? -Infinity) - (b.from ?? -Infinity));
  let covered = from;
  for (const p of ranged) {
    if ((p.from ?? -Infinity) > covered) return null;
    covered = Math.max(covered, p.to ?? Infinity);
  }
  return covered >= to ? ranged.map((p) => p.name) : null;
}

/**
 * The server can compress with LZ4 (PostgreSQL 14 or later, built with lz4): migration 016 then
 * gives event payloads LZ4 compression, and every partition made copies it from the parent.
 */
export async function supportsLz4(db: Db): Promise<boolean> {
  const { rows } = await sql<{ lz4: boolean }>`
    select 'lz4' = any(enumvals) as lz4 from pg_settings where name = 'default_toast_compression'`.execute(db);
  return rows[0]?.lz4 === true;
}

/** Sets the compression of the `payload` column of each of `tables` (`default`: the server's). */
export async function setPayloadCompression(db: Db, tables: readonly string[], method: 'lz4' | 'default'): Promise<void> {
  for (const table of tables) await sql`alter table ${sql.id(table)} alter column payload set compression ${sql.raw(method)}`.execute(db);
}

/**
 * Creates table `name` shaped like `events` (its columns' defaults and compression) with the
 * parent's indexes and primary key (named `<parent's name>_<suffix>`) and, for a range, moves the
 * DEFAULT partition's rows of that range into it; then attaches it. Run inside a transaction.
 */
export async function createEventPartition(
  db: Db,
  name: string,
  suffix: string,
  bound: { from: number | null; to: number } | 'default',
): Promise<void> {
  // The parent's column compression too (migration 016), where the server supports LZ4.
  const compression = (await supportsLz4(db)) ? sql` including compression` : sql``;
  await sql`create table ${sql.id(name)} (like events including defaults${compression})`.execute(db);
  const { rows: indexes } = await sql<{ index_name: string; def: string; constraint_name: string | null; constraint_def: string | null }>`
    select ic.relname as index_name, pg_get_indexdef(x.indexrelid) as def,
      con.conname as constraint_name, pg_get_constraintdef(con.oid) as constraint_def
    from pg_index x join pg_class ic on ic.oid = x.indexrelid
      left join pg_constraint con on con.conindid = x.indexrelid and con.conrelid = x.indrelid
    where x.indrelid = to_regclass('events')
    order by ic.relname`.execute(db);
  for (const index of indexes) {
    if (index.constraint_name !== null && index.constraint_def !== null) {
      // A primary key (or unique constraint) matches the parent's only as a constraint.
      await sql`alter table ${sql.id(name)} add constraint ${sql.id(`${index.constraint_name}_${suffix}`)} ${sql.raw(index.constraint_def)}`.execute(db);
      continue;
    }
    const m = /^CREATE (UNIQUE )?INDEX \S+ ON ONLY \S+ (USING .*)$/.exec(index.def);
    if (!m) throw new Error(`unexpected definition of index ${index.index_name}: ${index.def}`);
    await sql`${sql.raw(`CREATE ${m[1] ?? ''}INDEX`)} ${sql.id(`${index.index_name}_${suffix}`)} on ${sql.id(name)} ${sql.raw(m[2]!)}`.execute(db);
  }
  if (bound === 'default') {
    await sql`alter table events attach partition ${sql.id(name)} default`.execute(db);
    return;
  }
  const from = bound.from === null ? sql`minvalue` : sql.lit(bound.from);
  const hasDefault = (await listEventPartitions(db)).some((p) => p.isDefault);
  const inRange = sql`${bound.from === null ? sql`true` : sql`"timestamp" >= ${sql.lit(bound.from)}`} and "timestamp" < ${sql.lit(bound.to)}`;
  const { rows } = hasDefault
    ? await sql<{ any: boolean }>`select exists (select 1 from ${sql.id(DEFAULT_PARTITION)} where ${inRange}) as any`.execute(db)
    : { rows: [] };
  if (rows[0]?.any) {
    // Events stored meanwhile in the DEFAULT partition for this range belong here now (ATTACH
    // would refuse the range otherwise), and the range may still be receiving some (a service
    // down for weeks, or the first start of several processes). Inserts wait until the commit
    // (this lock conflicts with theirs, reads go on), then are routed to the new partition: an
    // insert already routed to DEFAULT when ATTACH ran would fail its partition check instead.
    // Without rows to move, a range made ahead receives none; should one arrive anyway, ATTACH
    // fails and the next pass, finding it, takes this path.
    await sql`lock table events in share row exclusive mode`.execute(db);
    // Same column order: both tables are `like events`.
    await sql`with moved as (delete from ${sql.id(DEFAULT_PARTITION)} where ${inRange} returning *)
      insert into ${sql.id(name)} select * from moved`.execute(db);
  }
  await sql`alter table events attach partition ${sql.id(name)} for values from (${from}) to (${sql.lit(bound.to)})`.execute(db);
}

/** Runs `work` in a transaction holding the partition-DDL lock; undefined when another process holds it. */
async function underDdlLock<T>(db: Kysely<Database>, work: (trx: Kysely<Database>) => Promise<T>): Promise<T | undefined> {
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${PARTITION_DDL_LOCK}) as locked`.execute(trx);
    if (!rows[0]?.locked) return undefined;
    await sql`set local lock_timeout = ${sql.lit(`${DDL_LOCK_TIMEOUT_MS}ms`)}`.execute(trx);
    return work(trx);
  });
}

/**
 * Makes the partitions of `now`'s week and the PARTITIONS_AHEAD weeks after it that do not
 * exist yet; returns their names (none when another process was doing it, or `events` is not
 * partitioned).
 */
export async function ensureEventPartitions(db: Kysely<Database>, now: number): Promise<string[]> {
  const created = await underDdlLock(db, async (trx) => {
    const existing = await listEventPartitions(trx);
    if (existing.length === 0) return [];
    const made: string[] = [];
    for (let from = partitionStart(now), n = 0; n <= PARTITIONS_AHEAD; n++, from += PARTITION_SPAN_MS) {
      const to = from + PARTITION_SPAN_MS;
      if (existing.some((p) => overlaps(p, from, to))) continue;
      const name = partitionName(from);
      await createEventPartition(trx, name, name.slice('events_'.length), { from, to });
      made.push(name);
    }
    return made;
  });
  return created ?? [];
}

/**
 * Drops partition `name` (its rows with it); false when another process holds the
 * partition-DDL lock or the lock on `events` did not come within DDL_LOCK_TIMEOUT_MS.
 */
export async function dropEventPartition(db: Kysely<Database>, name: string): Promise<boolean> {
  try {
    const dropped = await underDdlLock(db, async (trx) => {
      // Gone already (dropped by another process since it was listed): nothing to do.
      if (!(await listEventPartitions(trx)).some((p) => p.name === name)) return false;
      await sql`drop table ${sql.id(name)}`.execute(trx);
      return true;
    });
    return dropped ?? false;
  } catch (err) {
    if ((err as { code?: string }).code === '55P03') return false; // lock_not_available: next pass
    throw err;
  }
}
