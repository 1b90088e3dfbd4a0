import { mediaFlag } from './media.js';

export const reducedMotion = () => mediaFlag('prefers-reduced-motion', 'reduce', 'no-preference');
