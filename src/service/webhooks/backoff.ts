/**
 * When a failed delivery is tried again: exponential backoff with full jitter (a uniformly
 * random delay between 0 and base * 2^(failures-1), capped), so that the retries of many
 * deliveries to one recovering endpoint spread out instead of arriving together.
 */

export interface BackoffPolicy {
  /** Upper bound of the first retry's delay. */
  baseMs: number;
  /** Upper bound of any delay. */
  capMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 1000, capMs: 60 * 60 * 1000 };

/** Delay before the next attempt after `failures` failed attempts (>= 1); `random` in [0, 1). */
export function retryDelay(failures: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(failures - 1, 52));
  return Math.floor(random() * ceiling);
}
