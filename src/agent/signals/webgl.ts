import { sha256 } from '../hash.js';

const PARAMS = (
  'ALIASED_LINE_WIDTH_RANGE ALIASED_POINT_SIZE_RANGE ALPHA_BITS BLUE_BITS DEPTH_BITS GREEN_BITS RED_BITS STENCIL_BITS ' +
  'MAX_COMBINED_TEXTURE_IMAGE_UNITS MAX_CUBE_MAP_TEXTURE_SIZE MAX_FRAGMENT_UNIFORM_VECTORS MAX_RENDERBUFFER_SIZE ' +
  'MAX_TEXTURE_IMAGE_UNITS MAX_TEXTURE_SIZE MAX_VARYING_VECTORS MAX_VERTEX_ATTRIBS MAX_VERTEX_TEXTURE_IMAGE_UNITS ' +
  'MAX_VERTEX_UNIFORM_VECTORS MAX_VIEWPORT_DIMS SHADING_LANGUAGE_VERSION VERSION VENDOR RENDERER'
).split(' ');

export const webgl = async () => {
  const gl = document.createElement('canvas').getContext('webgl');
  if (!gl) return;
  const g = gl as unknown as Record<string, number>;
  const info = gl.getExtension('WEBGL_debug_renderer_info');
  const values: unknown[] = PARAMS.map((p): unknown => gl.getParameter(g[p]!));
  for (const shader of [gl.VERTEX_SHADER, gl.FRAGMENT_SHADER])
    for (const precision of [gl.LOW_FLOAT, gl.MEDIUM_FLOAT, gl.HIGH_FLOAT, gl.LOW_INT, gl.MEDIUM_INT, gl.HIGH_INT]) {
      const f = gl.getShaderPrecisionFormat(shader, precision);
      values.push(f && [f.rangeMin, f.rangeMax, f.precision]);
    }
  return {
    vendor: String(gl.getParameter(info ? info.UNMASKED_VENDOR_WEBGL : gl.VENDOR)),
    renderer: String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER)),
    params: await sha256(JSON.stringify(values)),
    extensions: await sha256((gl.getSupportedExtensions() || []).sort().join()),
  };
};
