import { mediaFlag } from './media.js';

export const hdr = () => mediaFlag('dynamic-range', 'high', 'standard');
