/**
 * A pure function of one string with a bounded memory of its recent results: for short values
 * that come back over and over (the user agents of a browser release), computed once while they
 * keep coming. Each lookup hashes the string: long texts that change are better kept by their
 * owner (parsed-json-cache.ts). The oldest entry goes first when full (a
 * Map keeps insertion order). Results are shared between callers: they must not be changed.
 */
export function boundedMemo<T>(fn: (key: string) => T, max: number): (key: string) => T {
  const results = new Map<string, T>();
  return (key) => {
    if (results.has(key)) return results.get(key) as T;
    const result = fn(key);
    if (results.size >= max) results.delete(results.keys().next().value!);
    results.set(key, result);
    return result;
  };
}
