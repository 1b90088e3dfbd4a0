import { sha256 } from '../hash.js';
import { canvas2d } from './canvas-2d.js';

const FAMILIES = ['serif', 'sans-serif', 'monospace', 'cursive', 'fantasy', 'system-ui', 'math', 'emoji'];

/** Hash of the text widths of each generic family: the user's and the OS's font choices. */
export const fontPreferences = () => {
  const x = canvas2d();
  if (!x) return;
  return sha256(
    FAMILIES.map((f) => {
      x.font = '40px ' + f;
      return x.measureText('Tessera mwi \u00c5\u03a9').width;
    }).join(),
  );
};
