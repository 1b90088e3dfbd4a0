/**
 * A short-lived in-process cache for rows that every ingestion request reads and that rarely
 * change (its API key, the environment's filtering rules): at a few thousand requests per
 * second it turns one query per request into one per second.
 *
 * Freshness: a change made through this process's store functions invalidates the cache at
 * once; a change made by another process (the CLI, another service sharing PostgreSQL) is seen
 * after at most READ_CACHE_TTL_MS. The TTL runs on real time (not the injectable service
 * clock), because it bounds how long a change takes to propagate, not anything about events.
 */

export const READ_CACHE_TTL_MS = 1000;
/** Bounds memory when requests carry many distinct (for example random, unknown) keys. */
const MAX_ENTRIES = 10_000;

interface Entry<T> {
  value: T;
  expiresAt: number;
  /** The write generation it was read in: any later write makes it stale. */
  generation: number;
}

export interface ReadCache<T> {
  /** The cached value for `key` on this database, or `load()`'s (then cached). */
  get(db: object, key: string, load: () => Promise<T>): Promise<T>;
}

/** Bumped by every write to a cached table, in any cache of the process. */
let generation = 0;

/** Call after writing to a cached table (keys, workspaces, filtering rules): every cache forgets. */
export function invalidateReadCaches(): void {
  generation++;
}

export function createReadCache<T>(): ReadCache<T> {
  // Per database (several services can share a process, as tests do), then per key.
  const perDb = new WeakMap<object, Map<string, Entry<T>>>();

  return {
    async get(db, key, load) {
      let entries = perDb.get(db);
      if (!entries) {
        entries = new Map();
        perDb.set(db, entries);
      }
      const now = performance.now();
      const hit = entries.get(key);
      if (hit && hit.generation === generation && hit.expiresAt > now) return hit.value;

      // A write while loading makes the loaded value suspect: it is used, but not kept.
      const loadedIn = generation;
      const value = await load();
      if (loadedIn === generation) {
        if (entries.size >= MAX_ENTRIES) entries.clear();
        entries.set(key, { value, expiresAt: now + READ_CACHE_TTL_MS, generation: loadedIn });
      }
      return value;
    },
  };
}
