/**
 * PostgreSQL: the partitions of `events` as last listed, and those that hold a recent time range
 * (the last 24 hours an identification reads, recent-activity.ts), so that its statements can
 * read those partitions by name instead of the partitioned parent.
 *
 * Why: a statement on the parent has a plan for any values (a generic plan) that covers every
 * partition, and locks every one each time it runs, with hundreds at a long retention; planned
 * for its values instead, it is planned on every call, most of the cost of an identification's
 * read. Naming the week or two that hold the range gives a small plan that PostgreSQL can keep.
 *
 * The list is read from the catalog and kept for PARTITION_LIST_TTL_MS. A kept list cannot
 * mislead: partitions holding the last 24 hours are neither dropped (retention drops a
 * partition once all of it is past the cutoff, at least a day back) nor replaced, and a range
 * the list does not cover is listed again (at most once per RELIST_MS). When part of the range
 * has no partition of its own (the service was down longer than the weeks made ahead, so
 * DEFAULT holds those rows), no names come back: the statement then reads the parent, planned
 * for its values.
 */
import { listEventPartitions, partitionsCovering, type EventPartition } from './event-partitions.js';
import { internalsOf, type Store } from './handle.js';

const PARTITION_LIST_TTL_MS = 10 * 60_000;
const RELIST_MS = 1000;

/**
 * The partitions of `events`, as listed at most PARTITION_LIST_TTL_MS ago; with `relist`, as
 * listed now (unless they were within RELIST_MS).
 */
export async function keptPartitions(store: Store, relist = false): Promise<readonly EventPartition[]> {
  const { db, state } = internalsOf(store);
  const kept = state.eventPartitions;
  const age = kept ? Date.now() - kept.listedAt : Infinity;
  if (kept && age < (relist ? RELIST_MS : PARTITION_LIST_TTL_MS)) return kept.list;
  const list = await listEventPartitions(db);
  state.eventPartitions = { list, listedAt: Date.now() };
  return list;
}

/** The names of the partitions holding [from, to), or null (read the parent). */
export async function partitionsHolding(store: Store, from: number, to: number): Promise<string[] | null> {
  return partitionsCovering(await keptPartitions(store), from, to) ?? partitionsCovering(await keptPartitions(store, true), from, to);
}
