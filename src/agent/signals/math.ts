import { sha256 } from '../hash.js';

const FUNCTIONS = 'acos asin atan acosh asinh atanh sin cos tan sinh cosh tanh exp expm1 log1p log10 cbrt'.split(' ');
// Inputs where engines and their math libraries round differently.
const INPUTS = [0.123456789, 2.5, -1e300, 1e21, Math.PI];

/** Hash of transcendental results, which differ between JS engines, CPUs and OSes. */
export const math = () =>
  sha256(FUNCTIONS.flatMap((f) => INPUTS.map((x) => (Math as unknown as Record<string, (x: number) => number>)[f]!(x))).join());
