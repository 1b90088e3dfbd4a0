/**
 * The primary's book of the rate limits of `tessera start --workers N` (without Redis): per
 * bucket, a fixed window (it starts with the bucket's first request and lasts the limit's
 * window) and the points left in it. Workers do not ask for every request: they lease points
 * and spend them locally (lease-limiter.ts), so a worker at a steady rate asks a few times per
 * window instead of once per request (the question was an IPC round trip, about a tenth of the
 * CPU of an identification in two workers).
 *
 * The limit stays exact. A lease is at most half the worker's share of what is left (so leases
 * shrink to single points as the window runs out), and when nothing is left the asking worker
 * waits while the others give back what they have not spent (`recall`): a request is refused
 * only once every point of the window has been spent. Points a worker held when it died stay
 * spent until the window ends: never more requests than the limit, at worst a few fewer.
 *
 * Pure bookkeeping: time comes in as `now`, and the messages are the caller's (primary.ts).
 */

/** Identifies a counter: the bucket with its limit (a key whose limit changes counts anew, as before). */
export function leaseKey(bucket: string, points: number, windowMs: number): string {
  return `${points}/${windowMs}:${bucket}`;
}

export interface LeaseAsk {
  worker: number;
  key: string;
  /** The limit: requests per window. */
  points: number;
  windowMs: number;
  /** How many points the worker would like (at least 1). */
  want: number;
  /** How many workers share the limit now: a lease is at most a half of this worker's share of what is left. */
  workers: number;
}

export type LeaseAnswer =
  /** `granted` 0: the window's points are all spent; refuse until `windowEnd`. */
  | { kind: 'grant'; granted: number; windowEnd: number }
  /** Nothing left here, but these workers hold unspent points: ask them back (`returned`), then ask again. */
  | { kind: 'recall'; from: number[]; windowEnd: number };

interface Window {
  end: number;
  left: number;
  /** Points leased per worker in this window and not given back (spent or not). */
  held: Map<number, number>;
}

export class LeaseLedger {
  private readonly windows = new Map<string, Window>();

  ask(a: LeaseAsk, now: number): LeaseAnswer {
    let w = this.windows.get(a.key);
    if (!w || now >= w.end) {
      w = { end: now + a.windowMs, left: a.points, held: new Map() };
      this.windows.set(a.key, w);
    }
    if (w.left > 0) {
      const share = Math.floor(w.left / (2 * Math.max(1, a.workers)));
      const granted = Math.min(w.left, Math.max(1, Math.min(a.want, share)));
      w.left -= granted;
      w.held.set(a.worker, (w.held.get(a.worker) ?? 0) + granted);
      return { kind: 'grant', granted, windowEnd: w.end };
    }
    const from = [...w.held].filter(([worker, held]) => worker !== a.worker && held > 0).map(([worker]) => worker);
    if (from.length > 0) return { kind: 'recall', from, windowEnd: w.end };
    return { kind: 'grant', granted: 0, windowEnd: w.end };
  }

  /** `worker` gave back `points` it had not spent of the window that ends at `windowEnd`; it holds none now. */
  returned(worker: number, key: string, points: number, windowEnd: number): void {
    const w = this.windows.get(key);
    if (!w || w.end !== windowEnd) return; // a window that has ended: its points are moot
    w.held.delete(worker);
    w.left += points;
  }

  /** A worker died: what it held stays spent (it may have spent it), and no recall waits for it. */
  forget(worker: number): void {
    for (const w of this.windows.values()) w.held.delete(worker);
  }

  /** Drops the windows that have ended (a bucket's next request starts a new one). */
  sweep(now: number): void {
    for (const [key, w] of this.windows) if (now >= w.end) this.windows.delete(key);
  }

  /** Buckets with a window open (for tests and the sweep's bound). */
  get size(): number {
    return this.windows.size;
  }
}
