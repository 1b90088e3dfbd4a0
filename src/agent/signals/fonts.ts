import { canvas2d } from './canvas-2d.js';

// Fonts that come with a particular OS version, language pack or application (Office, IDEs,
// design tools); fonts every system of an OS has are left out: the user agent already says it.
const FONTS = (
  'Arial Narrow,Bahnschrift,Calibri,Cambria,Candara,Century Gothic,Consolas,Constantia,Corbel,' +
  'Franklin Gothic Medium,Garamond,Gill Sans,Rockwell,Segoe Fluent Icons,Segoe Print,Sitka Text,Lucida Grande,' +
  'Avenir Next,Helvetica Neue,Menlo,MS Gothic,Yu Gothic,Malgun Gothic,Microsoft YaHei,SimSun,PingFang SC,' +
  'Hiragino Sans,DejaVu Sans,Liberation Mono,Noto Sans,Ubuntu,Cantarell,Roboto,Droid Sans,Source Code Pro,' +
  'Fira Code,Open Sans,JetBrains Mono'
).split(',');
// Two fallbacks of different widths suffice: an installed font cannot match both.
const GENERICS = ['monospace', 'sans-serif'];

/** Installed fonts, found by measuring text: a font is there when it changes a fallback's width. */
export const fonts = () => {
  const x = canvas2d();
  if (!x) return;
  const width = (family: string) => {
    x.font = '48px ' + family;
    return x.measureText('mmMwWLliI0fiflO&1@').width;
  };
  const base = GENERICS.map(width);
  return FONTS.filter((f) => GENERICS.some((g, i) => width(`"${f}",${g}`) != base[i]));
};
