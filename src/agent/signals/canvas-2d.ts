/** A fresh 2D canvas context of the given size, or undefined when canvas is unavailable. */
export const canvas2d = (width = 1, height = 1): CanvasRenderingContext2D | undefined => {
  const c = document.createElement('canvas');
  c.width = width;
  c.height = height;
  return c.getContext('2d') || undefined;
};
