/** The top byte of a float32 NaN made from Infinity - Infinity: 255 on x86, 127 on ARM. */
export const architecture = () => {
  const f = new Float32Array(1);
  f[0] = Infinity;
  f[0] = f[0] - f[0];
  return new Uint8Array(f.buffer)[3];
};
