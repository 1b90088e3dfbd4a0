/**
 * Logistic regression by maximum likelihood (Newton's method, i.e. iteratively reweighted
 * least squares): the weights w that make P(y = 1 | x) = sigmoid(w · x) most likely for the
 * observed rows. Used to fit the service's ID-origin model (fit-id-origin.ts). Pure.
 */

export const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

const dot = (a: readonly number[], b: readonly number[]) => a.reduce((sum, ai, i) => sum + ai * b[i]!, 0);

/** Solves A x = b by Gaussian elimination with partial pivoting (A is small and symmetric positive definite here). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r]![col]!) > Math.abs(m[pivot]![col]!)) pivot = r;
    [m[col], m[pivot]] = [m[pivot]!, m[col]!];
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = m[r]![col]! / m[col]![col]!;
      for (let c = col; c <= n; c++) m[r]![c]! -= f * m[col]![c]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}

/**
 * Fits w for rows `x` (each with the same features; put a constant 1 first for an intercept)
 * and outcomes `y` (true = 1). A tiny ridge term keeps a separable or degenerate feature finite.
 */
export function fitLogistic(x: readonly (readonly number[])[], y: readonly boolean[], options: { iterations?: number; ridge?: number } = {}): number[] {
  if (x.length === 0 || x.length !== y.length) throw new Error('fitLogistic needs as many outcomes as rows, at least one');
  const k = x[0]!.length;
  const ridge = options.ridge ?? 1e-6;
  let w = new Array<number>(k).fill(0);
  for (let iteration = 0; iteration < (options.iterations ?? 50); iteration++) {
    const gradient = new Array<number>(k).fill(0);
    const hessian = Array.from({ length: k }, () => new Array<number>(k).fill(0));
    x.forEach((row, i) => {
      const p = sigmoid(dot(row, w));
      const residual = (y[i] ? 1 : 0) - p;
      const weight = p * (1 - p);
      for (let a = 0; a < k; a++) {
        gradient[a]! += residual * row[a]!;
        for (let b = 0; b < k; b++) hessian[a]![b]! += weight * row[a]! * row[b]!;
      }
    });
    for (let a = 0; a < k; a++) {
      hessian[a]![a]! += ridge;
      gradient[a]! -= ridge * w[a]!;
    }
    const step = solve(hessian, gradient);
    w = w.map((wi, i) => wi + step[i]!);
    if (Math.max(...step.map(Math.abs)) < 1e-9) break;
  }
  return w;
}
