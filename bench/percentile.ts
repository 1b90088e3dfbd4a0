/** The nearest-rank p-th percentile (0-100) of ascending `sorted`; NaN when it is empty. */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]! : NaN;
