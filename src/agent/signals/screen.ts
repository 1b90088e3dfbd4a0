/** Larger side first so rotating the device does not change it; pixel ratio rounded to 2 decimals. */
export const screenSize = () => {
  const { width: w, height: h, colorDepth } = screen;
  return {
    width: Math.max(w, h),
    height: Math.min(w, h),
    color_depth: colorDepth,
    pixel_ratio: Math.round(devicePixelRatio * 100) / 100,
  };
};
