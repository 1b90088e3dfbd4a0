import { mediaValue } from './media.js';

export const colorScheme = () => mediaValue('prefers-color-scheme', ['light', 'dark'] as const);
