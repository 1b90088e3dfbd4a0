import {
  MAX_LINKED_ID_LENGTH,
  MAX_TAGS_JSON_BYTES,
  MAX_URL_LENGTH,
  PROTOCOL_VERSION,
  type IdentifyRequest,
} from '../protocol/index.js';
import { collectSignals, type Collected } from './collect.js';
import { agentError, fail } from './errors.js';
import { parseOptions, type CdnDefaults } from './options.js';
import { preconnect } from './preconnect.js';
import { resultCache } from './result-cache.js';
import { sealedResult } from './sealed-result.js';
import { send } from './transport.js';
import type { Agent, GetOptions, GetResult, StartOptions } from './types.js';
import { hashUrl } from './url-hashing.js';
import { VERSION } from './version.js';
import { visitorTokenStore } from './visitor-token.js';

const DEFAULT_TIMEOUT_MS = 10000;

/** Builds `start()`; the CDN build passes its baked-in API key and endpoint. */
export const createStart =
  (cdn?: CdnDefaults) =>
  (options?: StartOptions): Agent => {
    const config = parseOptions(options, cdn);
    const tokens = visitorTokenStore(config.prefix);
    const cache = config.cache && resultCache(config.cache, config.apiKey);

    // Collection starts now (after start() returns) so that the first get() finds it done or
    // under way. A get() takes the collection in flight, or the one start() began; once that
    // one has been used and has settled, the next get() collects afresh.
    let collection!: Promise<Collected>;
    let used = false;
    let settled = false;
    const collect = () => {
      settled = false;
      const p = Promise.resolve().then(() => collectSignals(config.prefix));
      void p.then(() => p == collection && (settled = true));
      return (collection = p);
    };
    void collect();
    void preconnect(config.endpoints[0]!);
    let token = tokens.read();

    async function identify(o: GetOptions, tags: unknown, deadline: number, cacheKey?: string): Promise<GetResult> {
      if (used && settled) void collect();
      used = true;
      const { signals, errors } = await collection;
      const h = config.hashing;
      // Hashed when asked, and cut to the protocol's limit so a very long URL never fails the call.
      const pageUrl = async (u: string) => (h ? await hashUrl(u, h) : u).slice(0, MAX_URL_LENGTH);
      const referrer = document.referrer;
      const request: IdentifyRequest = {
        v: PROTOCOL_VERSION,
        api_key: config.apiKey,
        url: await pageUrl(location.href),
        referrer: referrer ? await pageUrl(referrer) : undefined,
        linked_id: o.linkedId,
        tags: tags as IdentifyRequest['tags'],
        token: await token,
        sdk: { platform: 'js', version: VERSION, integrations: config.integrations },
        signals,
        signal_errors: errors,
      };
      const r = await send(config.endpoints, request, deadline);
      token = Promise.resolve(r.token);
      void tokens.write(r.token);
      const result = {
        event_id: r.event_id,
        visitor_id: r.visitor_id,
        confidence: r.confidence,
        visitor_found: r.visitor_found,
        suspect_score: r.suspect_score,
        sealed_result: r.sealed_result,
      };
      if (cacheKey) cache!.write(cacheKey, result);
      return { ...result, sealed_result: sealedResult(r.sealed_result), ...(cache && { cache_hit: false }) };
    }

    return {
      async get(options?: GetOptions) {
        const o = options || {};
        const tags = o.tags !== undefined ? o.tags : o.tag;
        if (o.linkedId !== undefined && (typeof o.linkedId != 'string' || o.linkedId.length > MAX_LINKED_ID_LENGTH))
          fail('linked_id_invalid');
        if (tags !== undefined && !validTags(tags)) fail('tags_invalid');
        const cacheKey = cache && (await cache.keyOf(o.linkedId, tags));
        const hit = cacheKey && cache.read(cacheKey);
        if (hit) return hit;
        // setTimeout fires at once for delays past 2^31 - 1 ms: such a timeout means the default.
        const timeout = o.timeout! > 0 && o.timeout! < 2 ** 31 ? o.timeout! : DEFAULT_TIMEOUT_MS;
        return new Promise<GetResult>((resolve, reject) => {
          const timer = setTimeout(() => reject(agentError('client_timeout')), timeout);
          identify(o, tags, Date.now() + timeout, cacheKey)
            .then(resolve, reject)
            .finally(() => clearTimeout(timer));
        });
      },
    };
  };

/** An object or a primitive (not a top-level array, not a function) whose JSON fits in 16 KB. */
const validTags = (tags: unknown): boolean => {
  try {
    const json = JSON.stringify(tags);
    return !Array.isArray(tags) && json !== undefined && new TextEncoder().encode(json).length <= MAX_TAGS_JSON_BYTES;
  } catch {
    return false;
  }
};
