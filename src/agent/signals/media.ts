/** Shared helpers of the media-feature sources (not a source itself). */
export const matches = (query: string): boolean => matchMedia(`(${query})`).matches;

/** The first of `values` that `feature` matches, or undefined when the browser knows none. */
export const mediaValue = <T extends string>(feature: string, values: readonly T[]): T | undefined =>
  values.find((v) => matches(`${feature}:${v}`));

/** true / false for `feature: on` / `feature: off`, undefined when the feature is unsupported. */
export const mediaFlag = (feature: string, on: string, off: string): boolean | undefined =>
  matches(`${feature}:${on}`) || (matches(`${feature}:${off}`) ? false : undefined);
