import { mediaValue } from './media.js';

const LEVELS = { 'no-preference': 0, more: 1, less: -1, custom: 10 };

/** prefers-contrast as a number: 0 none, 1 more, -1 less, 10 custom (forced colors). */
export const contrast = () => {
  const v = mediaValue('prefers-contrast', Object.keys(LEVELS) as (keyof typeof LEVELS)[]);
  return v && LEVELS[v];
};
