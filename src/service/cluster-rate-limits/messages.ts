/** What the workers of `tessera start --workers N` and their primary say about rate limits (lease-ledger.ts). */

const TAG = 'tessera-rate-limit';

export type ToPrimary =
  /** Lease up to `want` points of the bucket's current window; answered by a `grant` with the same `id`. */
  | { tag: typeof TAG; type: 'ask'; id: number; key: string; points: number; windowMs: number; want: number }
  /** The answer to a `recall`: the points of that window this worker had not spent (it holds none now). */
  | { tag: typeof TAG; type: 'returned'; key: string; points: number; windowEnd: number };

export type ToWorker =
  /** `granted` 0: the window's points are all spent until `windowEnd`. */
  | { tag: typeof TAG; type: 'grant'; id: number; granted: number; windowEnd: number }
  /** Give back the points of this window not spent yet. */
  | { tag: typeof TAG; type: 'recall'; key: string; windowEnd: number };

type Untagged<M> = M extends unknown ? Omit<M, 'tag'> : never;

export function rateLimitMessage<M extends ToPrimary | ToWorker>(message: Untagged<M>): M {
  return { tag: TAG, ...message } as unknown as M;
}

export function isRateLimitMessage<M extends ToPrimary | ToWorker>(message: unknown): message is M {
  return typeof message === 'object' && message !== null && (message as { tag?: unknown }).tag === TAG;
}
