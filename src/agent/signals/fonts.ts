import { canvas2d } from './canvas-2d.js';

// Fonts that tell operating systems, versions and installed software apart.
const FONTS = (
  'Arial Black,Arial Narrow,Bahnschrift,Calibri,Cambria,Candara,Century Gothic,Comic Sans MS,Consolas,' +
  'Constantia,Corbel,Franklin Gothic Medium,Garamond,Gill Sans,Helvetica Neue,Impact,Lucida Console,Lucida Grande,' +
  'Menlo,Monaco,MS Gothic,Palatino,Segoe UI,Segoe Print,Sitka Text,Tahoma,Trebuchet MS,Verdana,Yu Gothic,' +
  'Malgun Gothic,Microsoft YaHei,SimSun,PingFang SC,Hiragino Sans,Avenir,Futura,Optima,Didot,Baskerville,' +
  'Chalkboard,Marker Felt,Papyrus,Rockwell,Cochin,DejaVu Sans,Liberation Mono,Noto Sans,Ubuntu,Cantarell,Roboto,' +
  'Droid Sans,Source Code Pro,Fira Sans,Open Sans'
).split(',');
const GENERICS = ['monospace', 'sans-serif', 'serif'];

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
