/**
 * Group commit. Every SQLite commit writes the changed pages of the table and of each of its
 * indexes to the WAL; concurrent requests mostly touch the same upper pages, so their writes
 * committed together cost a fraction of committing each alone (ingestion: each work is one
 * visit, its visitor writes with its event). On PostgreSQL event inserts made without a visit
 * (insertEvent without `visitor`) become one multi-row statement; a visit with its event is one
 * statement of its own (events.ts).
 *
 * Items handed in within one turn of the event loop are written together as soon as the turn
 * ends (setImmediate: no fixed delay, a lone request waits for nothing), and each caller's
 * promise settles only after the shared write committed: a caller that answers after
 * awaiting it still answers only with its data stored.
 *
 * One failing item must not fail its neighbours: when the shared write fails (it is rolled
 * back entirely), each item is written again alone and gets its own outcome. Items must
 * therefore be plain writes built from values, safe to run again.
 */
import { internalsOf, type GroupWork, type GroupWriter, type Store } from './handle.js';

interface Pending<T> {
  item: T;
  resolve(): void;
  reject(err: unknown): void;
}

/** Bounds one shared write (PostgreSQL allows 65,535 parameters per statement). */
const MAX_GROUP = 500;

/** Collects items per event-loop turn and writes them with `writeAll`, or one by one with `writeOne` after a failure. */
export function groupWriter<T>(writeAll: (items: T[]) => Promise<unknown>, writeOne: (item: T) => Promise<unknown>): GroupWriter<T> {
  const queue: Pending<T>[] = [];
  let scheduled = false;

  const flush = async (): Promise<void> => {
    const group = queue.splice(0, MAX_GROUP);
    scheduled = queue.length > 0;
    if (scheduled) setImmediate(() => void flush());
    try {
      await writeAll(group.map((p) => p.item));
      for (const p of group) p.resolve();
    } catch (err) {
      if (group.length === 1) return group[0]!.reject(err);
      for (const p of group) {
        try {
          await writeOne(p.item);
          p.resolve();
        } catch (own) {
          p.reject(own);
        }
      }
    }
  };

  const write = (item: T) =>
    new Promise<void>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!scheduled) {
        scheduled = true;
        setImmediate(() => void flush());
      }
    });
  // For the metrics: items waiting for the next shared write.
  return Object.assign(write, { queued: () => queue.length });
}

/**
 * SQLite: runs `work` in the next shared transaction of this store; resolves once that
 * transaction committed. One writer per store: its single SQLite connection runs one
 * transaction at a time.
 */
export function commitTogether(store: Store, work: GroupWork): Promise<void> {
  const { state } = internalsOf(store);
  state.commitTogether ??= groupWriter<GroupWork>(
    (works) =>
      store.transaction(async (trx) => {
        for (const w of works) await w(trx);
      }),
    (w) => store.transaction(w),
  );
  return state.commitTogether(work);
}
