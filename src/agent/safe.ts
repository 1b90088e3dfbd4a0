/** Runs `f`, turning a throw or a rejection into undefined: storage and signals must never break get(). */
export const safe = <T>(f: () => T | Promise<T>): Promise<T | undefined> =>
  new Promise<T>((resolve) => resolve(f())).catch(() => undefined);

/** Resolves with `p`'s value, or rejects with `onTimeout()` after `ms`. */
export const within = <T>(p: Promise<T>, ms: number, onTimeout: () => unknown): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(onTimeout()), ms);
    p.then(resolve, reject).finally(() => clearTimeout(t));
  });
