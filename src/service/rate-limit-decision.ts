/** A rate limiter's answer for one request (rate-limiter.ts). */
export interface RateLimitDecision {
  allowed: boolean;
  /** Seconds until the bucket has room again (0 when allowed). */
  retryAfterSeconds: number;
}
