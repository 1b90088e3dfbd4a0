import { mediaFlag } from './media.js';

export const forcedColors = () => mediaFlag('forced-colors', 'active', 'none');
