import { sha256 } from './hash.js';
import type { Config } from './options.js';
import { sealedResult } from './sealed-result.js';
import type { GetResult } from './types.js';

type KeyValue = Pick<Storage, 'getItem' | 'setItem'>;
/** A result as stored: the sealed result kept as its base64 text. */
type Stored = Omit<GetResult, 'sealed_result' | 'cache_hit'> & { sealed_result: string | null };

/**
 * The result cache of one agent: sessionStorage, localStorage or the agent's memory. Entries
 * are `{ x: expiry ms, r: result }` JSON under `<cachePrefix>_tsr_<hash of apiKey, linkedId, tags>`;
 * expired or unreadable entries count as misses and are overwritten by the next result.
 */
export function resultCache(c: NonNullable<Config['cache']>, apiKey: string) {
  const memory = new Map<string, string>();
  const store = (): KeyValue =>
    c.storage == 'agent'
      ? { getItem: (k) => memory.get(k) ?? null, setItem: (k, v) => void memory.set(k, v) }
      : window[c.storage];
  const keyOf = async (linkedId?: string, tags?: unknown) =>
    c.prefix + '_tsr_' + (await sha256(JSON.stringify([apiKey, linkedId ?? null, tags ?? null])));

  return {
    keyOf,
    read(key: string): GetResult | undefined {
      try {
        const { x, r } = JSON.parse(store().getItem(key)!) as { x: number; r: Stored };
        if (Date.now() < x && typeof r.visitor_id == 'string')
          return { ...r, sealed_result: sealedResult(r.sealed_result), cache_hit: true };
      } catch {
        // missing, corrupt or blocked storage: a miss
      }
    },
    write(key: string, r: Stored) {
      try {
        store().setItem(key, JSON.stringify({ x: Date.now() + c.seconds * 1000, r }));
      } catch {
        // full or blocked storage: the result is simply not cached
      }
    },
  };
}
