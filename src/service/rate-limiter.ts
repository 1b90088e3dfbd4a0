/**
 * Fixed-window request counters per bucket (e.g. one per API key): in process memory by
 * default, in Redis when several service processes must share them. Counters use wall-clock
 * time (the injected clock does not apply: the Redis TTLs could not follow it anyway).
 */
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

export interface RateLimitDecision {
  allowed: boolean;
  /** Seconds until the bucket has room again (0 when allowed). */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  /**
   * Counts one request in `bucket`, which allows `points` requests per `windowSeconds`.
   * A bucket should always be used with the same `points`/`windowSeconds`.
   */
  consume(bucket: string, points: number, windowSeconds: number): Promise<RateLimitDecision>;
}

export function createRateLimiter(opts: { redis?: Redis; keyPrefix: string }): RateLimiter {
  const limiters = new Map<string, RateLimiterAbstract>();
  const limiterFor = (points: number, duration: number): RateLimiterAbstract => {
    const id = `${points}/${duration}`;
    let limiter = limiters.get(id);
    if (!limiter) {
      const keyPrefix = `${opts.keyPrefix}rl:${id}`;
      // While Redis is unreachable each process counts in memory instead of failing requests.
      limiter = opts.redis
        ? new RateLimiterRedis({
            storeClient: opts.redis,
            keyPrefix,
            points,
            duration,
            insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration }),
          })
        : new RateLimiterMemory({ keyPrefix, points, duration });
      limiters.set(id, limiter);
    }
    return limiter;
  };
  return {
    async consume(bucket, points, windowSeconds) {
      if (!(points > 0)) return { allowed: false, retryAfterSeconds: Math.ceil(windowSeconds) };
      try {
        await limiterFor(Math.floor(points), windowSeconds).consume(bucket, 1);
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
