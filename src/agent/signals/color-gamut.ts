import { mediaValue } from './media.js';

// Widest first: a p3 screen also matches srgb.
export const colorGamut = () => mediaValue('color-gamut', ['rec2020', 'p3', 'srgb'] as const);
