import { mediaFlag } from './media.js';

export const invertedColors = () => mediaFlag('inverted-colors', 'inverted', 'none');
