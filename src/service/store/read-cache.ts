/**
 * A short-lived in-memory cache for rows that every ingestion request reads and that rarely
 * change (its API key, the environment's filtering rules): at a few thousand requests per
 * second it turns one query per request into one per second. One per store instance.
 *
 * Freshness: a change made through this store's functions invalidates the cache at once; a
 * change made by another process or store (the CLI, another service sharing the database) is
 * seen through the change feed (change-feed.ts): `changedElsewhere` is asked before the first
 * read of each event-loop callback, and the feed's notifications call `invalidate`.
 * READ_CACHE_TTL_MS remains as a backstop. It runs on real time (not the injectable service
 * clock): it bounds propagation, not events.
 *
 * Once per callback, not per read: on SQLite the question is a statement of its own (a read
 * transaction, several µs) and an identification makes four cached reads. What another process
 * committed before the current callback began is seen, and that is all an answer can depend on:
 * a request is read from its socket in a callback of its own, after the client sent it.
 */

export const READ_CACHE_TTL_MS = 1000;
/** Bounds memory when requests carry many distinct (for example random, unknown) keys. */
const MAX_ENTRIES = 10_000;

interface Entry {
  value: unknown;
  expiresAt: number;
  /** The write generation it was read in: any later write makes it stale. */
  generation: number;
}

export interface ReadCaches {
  /** The cached value of `key` in cache `name`, or `load()`'s (then cached). */
  get<T>(name: string, key: string, load: () => Promise<T>): Promise<T>;
  /** Call after writing to a cached table (keys, workspaces, filtering rules): every cache forgets. */
  invalidate(): void;
}

/**
 * `check`, asked at most once until the current callback's microtasks and ticks have run (the
 * answer `false` stands for the rest of it; `true` has been acted on by the first caller).
 *
 * Forgotten in a tick queued from a microtask: Node runs the ticks queued there only once the
 * microtask queue is empty, so after every continuation of the callback's promises. A tick
 * queued directly would run before the first of them when the check comes from the callback's
 * synchronous part (the request handler before its first `await`): a request then asked twice.
 */
function oncePerCallback(check: () => boolean): () => boolean {
  let asked = false;
  const forget = () => {
    asked = false;
  };
  const forgetOnceMicrotasksRan = () => process.nextTick(forget);
  return () => {
    if (asked) return false;
    asked = true;
    queueMicrotask(forgetOnceMicrotasksRan);
    return check();
  };
}

export function createReadCaches(opts: { changedElsewhere?: () => boolean } = {}): ReadCaches {
  let generation = 0;
  const caches = new Map<string, Map<string, Entry>>();
  const changedElsewhere = opts.changedElsewhere && oncePerCallback(opts.changedElsewhere);

  return {
    invalidate() {
      generation++;
    },
    async get<T>(name: string, key: string, load: () => Promise<T>): Promise<T> {
      let entries = caches.get(name);
      if (!entries) {
        entries = new Map();
        caches.set(name, entries);
      }
      if (changedElsewhere?.()) generation++;
      const now = performance.now();
      const hit = entries.get(key);
      if (hit && hit.generation === generation && hit.expiresAt > now) return hit.value as T;

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
