import { canvas2d } from './canvas-2d.js';

// Fonts that come with a particular OS version, language pack or application (Office, IDEs,
// design tools); fonts every system of an OS has are left out: the user agent already says it.
// Split by the width of their Latin letters, proportional or fixed.
const PROPORTIONAL = (
  'Arial Narrow,Bahnschrift,Calibri,Cambria,Candara,Century Gothic,Constantia,Corbel,' +
  'Franklin Gothic Medium,Garamond,Gill Sans,Rockwell,Segoe Fluent Icons,Segoe Print,Sitka Text,Lucida Grande,' +
  'Avenir Next,Helvetica Neue,Yu Gothic,Malgun Gothic,Microsoft YaHei,PingFang SC,' +
  'Hiragino Sans,DejaVu Sans,Noto Sans,Ubuntu,Cantarell,Roboto,Droid Sans,Open Sans'
).split(',');
const MONOSPACED = 'Consolas,Menlo,MS Gothic,SimSun,Liberation Mono,Source Code Pro,Fira Code,JetBrains Mono'.split(',');

/**
 * Installed fonts, found by measuring text: a font is there when it changes the width of the
 * fallback after it. The fallback is of the other kind, so that it cannot be the font itself
 * (a browser's default sans-serif or monospace font may well be on the list): proportional
 * fonts over monospace, monospaced ones over sans-serif. One measurement per font: the first
 * lookup of a font family is most of the cost (about 1 ms in Chromium on Linux).
 */
export const fonts = () => {
  const x = canvas2d();
  if (!x) return;
  const width = (family: string) => {
    x.font = '48px ' + family;
    return x.measureText('mmMwWLliI0fiflO&1@').width;
  };
  const installed = (list: string[], fallback: string) => {
    const base = width(fallback);
    return list.filter((f) => width(`"${f}",${fallback}`) != base);
  };
  return [...installed(PROPORTIONAL, 'monospace'), ...installed(MONOSPACED, 'sans-serif')];
};
