/** Runs `f`, turning a throw or a rejection into undefined: storage and signals must never break get(). */
export const safe = <T>(f: () => T | Promise<T>): Promise<T | undefined> =>
  new Promise<T>((resolve) => resolve(f())).catch(() => undefined);

/** What `within` rejects with when time runs out (compared by identity). */
export const TIMED_OUT = Error('timeout');

/** Resolves with `p`'s value, or rejects with TIMED_OUT after `ms`. */
export const within = <T>(p: Promise<T>, ms: number): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(TIMED_OUT), ms);
    p.then(resolve, reject).finally(() => clearTimeout(t));
  });
