/**
 * The q-quantile (0-1) of ascending `sorted` by the nearest-rank method, the benchmarks' one
 * definition of a percentile (p99 is q = 0.99); `empty` when there is nothing to rank.
 */
export function quantile(sorted: readonly number[], q: number, empty = NaN): number {
  if (sorted.length === 0) return empty;
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length))) - 1]!;
}
