/**
 * Group commit (SQLite). Every commit writes the changed pages of the table and of each of
 * its indexes to the WAL; concurrent requests mostly touch the same upper pages, so their
 * writes committed together cost a fraction of committing each alone. Writes handed to
 * `commitTogether` within one turn of the event loop run back to back in one transaction,
 * started as soon as the turn ends (setImmediate: no fixed delay, a lone request waits for
 * nothing), and each caller's promise settles only after that transaction committed: a
 * caller that answers after awaiting it still answers only with its data stored.
 *
 * One failing write must not fail its neighbours: when the shared transaction fails (it is
 * rolled back entirely), each write runs again alone in its own transaction and gets its own
 * outcome. Writes must therefore be plain statements built from values, safe to run again.
 */
import type { Kysely, Transaction } from 'kysely';

export type GroupWork<DB> = (trx: Transaction<DB>) => Promise<unknown>;

interface Job<DB> {
  work: GroupWork<DB>;
  resolve(): void;
  reject(err: unknown): void;
}

interface Group<DB> {
  queue: Job<DB>[];
  scheduled: boolean;
}

// One queue per database (Kysely instance): its single SQLite connection runs one batch at a time.
const groups = new WeakMap<object, Group<unknown>>();

async function flush<DB>(db: Kysely<DB>, group: Group<DB>): Promise<void> {
  const jobs = group.queue;
  group.queue = [];
  group.scheduled = false;
  try {
    await db.transaction().execute(async (trx) => {
      for (const job of jobs) await job.work(trx);
    });
    for (const job of jobs) job.resolve();
  } catch (err) {
    if (jobs.length === 1) return jobs[0]!.reject(err);
    for (const job of jobs) {
      try {
        await db.transaction().execute(job.work);
        job.resolve();
      } catch (own) {
        job.reject(own);
      }
    }
  }
}

/** Runs `work` in the next shared transaction; resolves once that transaction committed. */
export function commitTogether<DB>(db: Kysely<DB>, work: GroupWork<DB>): Promise<void> {
  let group = groups.get(db) as Group<DB> | undefined;
  if (!group) {
    group = { queue: [], scheduled: false };
    groups.set(db, group as Group<unknown>);
  }
  const g = group;
  return new Promise<void>((resolve, reject) => {
    g.queue.push({ work, resolve, reject });
    if (!g.scheduled) {
      g.scheduled = true;
      setImmediate(() => void flush(db, g));
    }
  });
}
