import { matches } from './media.js';

/** Bits per pixel of a monochrome screen (0 for color screens), undefined when unsupported. */
export const monochrome = () => {
  if (!matches('min-monochrome:0')) return;
  for (let i = 0; i <= 100; i++) if (matches('max-monochrome:' + i)) return i;
};
