import { sha256 } from '../hash.js';
import { canvas2d } from './canvas-2d.js';

/** Draws the geometry (false) or the text (true) picture and returns its PNG data URL. */
export const renderCanvas = (text: boolean): string | undefined => {
  const x = canvas2d(text ? 240 : 122, text ? 60 : 110);
  if (!x) return;
  if (text) {
    x.textBaseline = 'alphabetic';
    x.fillStyle = '#f60';
    x.fillRect(90, 2, 70, 22);
    x.fillStyle = '#069';
    x.font = '15px "Times New Roman"';
    x.fillText('Tessera <canvas> \u03a9\u2248\u00e7\u221a 1.0 \ud83e\udded', 2, 17);
    x.fillStyle = 'rgba(102,204,0,.6)';
    x.font = '18pt Arial';
    x.fillText('Tessera \ud83d\ude03 mwi', 4, 48);
  } else {
    x.globalCompositeOperation = 'multiply';
    for (const [color, cx, cy] of [['#f2f', 40, 40], ['#2ff', 80, 40], ['#ff2', 60, 80]] as const) {
      x.fillStyle = color;
      x.beginPath();
      x.arc(cx, cy, 40, 0, Math.PI * 2, true);
      x.closePath();
      x.fill();
    }
    x.fillStyle = '#f9c';
    x.arc(60, 60, 60, 0, Math.PI * 2, true);
    x.arc(60, 60, 20, 0, Math.PI * 2, true);
    x.fill('evenodd');
  }
  return x.canvas.toDataURL();
};

// The geometry picture the canvas source drew last: the tampering source compares it with a new
// drawing instead of drawing it twice itself (one PNG encoding less per collection).
let lastGeometry: string | undefined;

/** The canvas source's last geometry picture, once (then undefined until it draws again). */
export const takeGeometry = () => {
  const g = lastGeometry;
  lastGeometry = undefined;
  return g;
};

/** Geometry (GPU/driver sensitive) and text (font/OS sensitive) are hashed separately. */
export const canvas = async () => {
  const x = canvas2d();
  const geometry = (lastGeometry = renderCanvas(false));
  const text = renderCanvas(true);
  if (!x || !geometry || !text) return;
  x.rect(0, 0, 10, 10);
  x.rect(2, 2, 6, 6);
  return { winding: !x.isPointInPath(5, 5, 'evenodd'), geometry: await sha256(geometry), text: await sha256(text) };
};
