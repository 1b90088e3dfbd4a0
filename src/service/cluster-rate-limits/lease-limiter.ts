/**
 * A worker's rate limits in `tessera start --workers N` without Redis: points leased from the
 * primary (primary.ts, lease-ledger.ts) and spent here, so that most requests are counted
 * without a round trip. A lease that runs out within its window is followed by one twice its
 * size (up to MAX_LEASE); a recall (another worker found nothing left) gives back what is not
 * spent and starts again from one point. A refusal holds until the window ends: by then every
 * point of it has been spent.
 */
import type { RateLimitDecision } from '../rate-limit-decision.js';
import { leaseKey } from './lease-ledger.js';
import { isRateLimitMessage, rateLimitMessage, type ToPrimary, type ToWorker } from './messages.js';

/** The largest lease asked for: at a few hundred requests per second, a few asks per window. */
const MAX_LEASE = 128;

/** The channel to the primary: `process` in a cluster worker. */
export interface PrimaryChannel {
  send?(message: ToPrimary): unknown;
  on(event: 'message', listener: (message: unknown) => void): unknown;
}

interface Lease {
  key: string;
  /** The bucket's limit: requests per window. */
  points: number;
  windowMs: number;
  windowEnd: number;
  available: number;
  /** The primary said the window is spent. */
  refused: boolean;
  nextWant: number;
  asking: boolean;
  waiters: { resolve: (d: RateLimitDecision) => void; reject: (err: Error) => void }[];
}

/** Bounds the leases kept: past this many buckets, those whose window has ended are dropped. */
const SWEEP_AT = 1000;

function sweep(leases: Map<string, Lease>): void {
  const now = Date.now();
  for (const [key, lease] of leases) if (now >= lease.windowEnd && !lease.asking) leases.delete(key);
}

const ALLOWED: RateLimitDecision = { allowed: true, retryAfterSeconds: 0 };

function refusal(windowEnd: number, now: number): RateLimitDecision {
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((windowEnd - now) / 1000)) };
}

/** `timeoutMs`: an ask unanswered this long (the primary is stuck) fails the requests that wait on it. */
export function createLeaseLimiter(channel: PrimaryChannel, timeoutMs: number) {
  const leases = new Map<string, Lease>();
  const asks = new Map<number, { lease: Lease; timer: NodeJS.Timeout }>();
  let nextId = 1;

  const fail = (lease: Lease, err: Error) => {
    lease.asking = false;
    for (const waiter of lease.waiters.splice(0)) waiter.reject(err);
  };

  const ask = (lease: Lease) => {
    const id = nextId++;
    const want = Math.max(lease.waiters.length, lease.nextWant);
    lease.asking = true;
    const timer = setTimeout(() => {
      asks.delete(id);
      fail(lease, new Error(`rate limit: the primary process did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    asks.set(id, { lease, timer });
    const { key, points, windowMs } = lease;
    try {
      channel.send!(rateLimitMessage<ToPrimary>({ type: 'ask', id, key, points, windowMs, want }));
    } catch (err) {
      clearTimeout(timer);
      asks.delete(id);
      fail(lease, new Error('rate limit: the channel to the primary process is closed', { cause: err }));
    }
  };

  const onGrant = (message: Extract<ToWorker, { type: 'grant' }>) => {
    const pending = asks.get(message.id);
    if (!pending) return; // timed out already
    asks.delete(message.id);
    clearTimeout(pending.timer);
    const { lease } = pending;
    lease.asking = false;
    if (lease.windowEnd !== message.windowEnd) lease.available = 0;
    lease.windowEnd = message.windowEnd;
    if (message.granted === 0) {
      lease.refused = true;
      const now = Date.now();
      for (const waiter of lease.waiters.splice(0)) waiter.resolve(refusal(lease.windowEnd, now));
      return;
    }
    lease.available += message.granted;
    lease.nextWant = Math.min(MAX_LEASE, message.granted * 2);
    // The waiting requests get the points at once, in order (a recall may follow this message).
    while (lease.available > 0 && lease.waiters.length > 0) {
      lease.available--;
      lease.waiters.shift()!.resolve(ALLOWED);
    }
    if (lease.waiters.length > 0) ask(lease);
  };

  const onRecall = (message: Extract<ToWorker, { type: 'recall' }>) => {
    const lease = leases.get(message.key);
    const current = lease !== undefined && lease.windowEnd === message.windowEnd;
    const points = current ? lease.available : 0;
    if (current) {
      lease.available = 0;
      lease.nextWant = 1;
    }
    try {
      channel.send!(rateLimitMessage<ToPrimary>({ type: 'returned', key: message.key, points, windowEnd: message.windowEnd }));
    } catch {
      // The primary is gone: nobody is waiting for the answer.
    }
  };

  channel.on('message', (message) => {
    if (!isRateLimitMessage<ToWorker>(message)) return;
    if (message.type === 'grant') onGrant(message);
    else onRecall(message);
  });

  return {
    consume(bucket: string, points: number, windowSeconds: number): Promise<RateLimitDecision> {
      const windowMs = windowSeconds * 1000;
      const key = leaseKey(bucket, points, windowMs);
      let lease = leases.get(key);
      if (!lease) {
        if (leases.size >= SWEEP_AT) sweep(leases);
        lease = { key, points, windowMs, windowEnd: 0, available: 0, refused: false, nextWant: 1, asking: false, waiters: [] };
        leases.set(key, lease);
      }
      const now = Date.now();
      if (now >= lease.windowEnd) {
        // The window has ended (or never began): its points and its refusal with it.
        lease.available = 0;
        lease.refused = false;
      }
      if (lease.available > 0) {
        lease.available--;
        return Promise.resolve(ALLOWED);
      }
      if (lease.refused) return Promise.resolve(refusal(lease.windowEnd, now));
      const waiting = new Promise<RateLimitDecision>((resolve, reject) => lease.waiters.push({ resolve, reject }));
      if (!lease.asking) ask(lease);
      return waiting;
    },
  };
}
