import { mediaFlag } from './media.js';

export const reducedTransparency = () => mediaFlag('prefers-reduced-transparency', 'reduce', 'no-preference');
