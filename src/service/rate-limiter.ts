/**
 * Fixed-window request counters per bucket (e.g. one per API key). Where they are kept:
 * - in Redis when it is configured: shared by every process of every machine;
 * - otherwise, in the workers of `tessera start --workers N`, in the primary process, which
 *   leases points to the workers over the cluster's IPC channel (cluster-rate-limits/): shared
 *   by the workers of that machine, and exact;
 * - otherwise in this process's memory.
 * Counters use wall-clock time (the injected clock does not apply: the Redis TTLs could not
 * follow it anyway).
 */
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { createLeaseLimiter } from './cluster-rate-limits/lease-limiter.js';
import type { RateLimitDecision } from './rate-limit-decision.js';

export interface RateLimiter {
  /**
   * Counts one request in `bucket`, which allows `points` requests per `windowSeconds`.
   * A bucket should always be used with the same `points`/`windowSeconds`.
   */
  consume(bucket: string, points: number, windowSeconds: number): Promise<RateLimitDecision>;
}

/** A worker's question unanswered this long (the primary is stuck) fails its request. */
const CLUSTER_TIMEOUT_MS = 5000;

/**
 * `cluster`: this process is a cluster worker whose primary serves the rate limits
 * (cluster-rate-limits/primary.ts); without Redis, its counters are the primary's.
 */
export function createRateLimiter(opts: { redis?: Redis; keyPrefix: string; cluster?: boolean }): RateLimiter {
  const counted = opts.cluster && !opts.redis ? createLeaseLimiter(process, CLUSTER_TIMEOUT_MS) : flexibleLimiter(opts);
  return {
    // A limit under one request per window (a key whose rate limit is 0) refuses each one.
    consume: (bucket, points, windowSeconds) =>
      points >= 1 ? counted.consume(bucket, Math.floor(points), windowSeconds) : Promise.resolve({ allowed: false, retryAfterSeconds: Math.ceil(windowSeconds) }),
  };
}

/** rate-limiter-flexible's counters, in Redis or in this process's memory; `points` is a whole number. */
function flexibleLimiter(opts: { redis?: Redis; keyPrefix: string }): RateLimiter {
  const limiters = new Map<string, RateLimiterAbstract>();
  const limiterFor = (points: number, duration: number): RateLimiterAbstract => {
    const id = `${points}/${duration}`;
    let limiter = limiters.get(id);
    if (!limiter) {
      const keyPrefix = `${opts.keyPrefix}rl:${id}`;
      if (opts.redis) {
        // While Redis is unreachable each process counts in memory instead of failing requests.
        limiter = new RateLimiterRedis({
          storeClient: opts.redis,
          keyPrefix,
          points,
          duration,
          insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration }),
        });
      } else {
        limiter = new RateLimiterMemory({ keyPrefix, points, duration });
      }
      limiters.set(id, limiter);
    }
    return limiter;
  };
  return {
    async consume(bucket, points, windowSeconds) {
      try {
        await limiterFor(points, windowSeconds).consume(bucket, 1);
        return { allowed: true, retryAfterSeconds: 0 };
      } catch (err) {
        if (err instanceof RateLimiterRes) {
          return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(err.msBeforeNext / 1000)) };
        }
        throw err; // neither a verdict nor covered by the insurance limiter: a real error
      }
    },
  };
}
