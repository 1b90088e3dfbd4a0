import { fail } from './errors.js';
import type { CacheStorageName, StartOptions, UrlHashing } from './types.js';
import { unwrap } from './without-default.js';
import { VERSION } from './version.js';

/** storageKeyPrefix when none is given. */
export const DEFAULT_STORAGE_PREFIX = '_vid_';

/**
 * Default endpoint of each region for the npm build, used only when the page names `region`
 * (the CDN build uses the origin that served it).
 */
export const REGION_ENDPOINTS = {
  us: 'https://api.tessera.dev',
  eu: 'https://eu.api.tessera.dev',
  ap: 'https://ap.api.tessera.dev',
};

const CACHE_DURATIONS: Record<string, number> = { 'optimize-cost': 3600, aggressive: 43200 };
const MAX_CACHE_SECONDS = 43200;

/** Start options checked and resolved. */
export interface Config {
  apiKey: string;
  /** Endpoint URLs in the order they are tried, each with `ci=js/<version>` appended. */
  endpoints: string[];
  prefix: string;
  hashing?: UrlHashing;
  cache?: { storage: CacheStorageName; seconds: number; prefix: string };
  integrations?: { name: string; version: string }[];
}

/** The CDN build's baked-in defaults: [apiKey, endpoint]. */
export type CdnDefaults = readonly [string, string];

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v == 'object' && !Array.isArray(v);

/** Validates start() options synchronously, throwing the contract's AgentError on the first bad one. */
export function parseOptions(o: StartOptions | undefined, cdn?: CdnDefaults): Config {
  const opts: StartOptions = o || {};
  const apiKey = opts.apiKey ?? cdn?.[0];
  if (apiKey == null || apiKey === '') fail('api_key_missing');
  if (typeof apiKey != 'string') fail('api_key_invalid');

  const region = opts.region;
  if (region !== undefined && !['us', 'eu', 'ap'].includes(region)) fail('region_invalid');

  const [given, noDefault] = unwrap(opts.endpoints);
  const list = given === undefined ? [] : typeof given == 'string' ? [given] : given;
  if (!Array.isArray(list) || (given !== undefined && !list.length)) fail('endpoints_misconfigured');
  for (const e of list as unknown[]) if (!isEndpoint(e)) fail('invalid_endpoint');
  const endpoints = [...(list as string[])];
  // The default endpoint: the CDN build's serving origin, or the region's hosted endpoint only
  // when the page names `region` (no silent fallback to a third party). withoutDefault drops
  // it (withoutDefault(undefined) leaves nothing to try: the default stays).
  const fallback = cdn ? cdn[1] : region && REGION_ENDPOINTS[region];
  if (fallback && (!noDefault || !endpoints.length)) endpoints.push(fallback);

  const prefix = opts.storageKeyPrefix ?? DEFAULT_STORAGE_PREFIX;
  if (typeof prefix != 'string') fail('storage_key_prefix_invalid');

  const h = opts.urlHashing;
  if (h !== undefined && (!isObject(h) || Object.values(h).some((v) => v !== undefined && typeof v != 'boolean')))
    fail('url_hashing_misconfigured');

  const cache = parseCache(opts.cache);
  if (!endpoints.length) fail('endpoints_misconfigured', 'Tessera: set `endpoints` to the URL of your Tessera service (or name a `region`)');

  return {
    apiKey: apiKey as string,
    endpoints: endpoints.map((e) => e + (e.includes('?') ? '&' : '?') + 'ci=js/' + VERSION),
    prefix,
    hashing: h,
    cache,
    // Only informative: anything but an array of 'name/version' strings is ignored.
    integrations: (Array.isArray(opts.integrationInfo) ? opts.integrationInfo : undefined)
      ?.filter((s) => typeof s == 'string')
      .map((s) => {
        const i = s.lastIndexOf('/');
        return i > 0 ? { name: s.slice(0, i), version: s.slice(i + 1) } : { name: s, version: '' };
      }),
  };
}

// Absolute http(s) URLs, protocol-relative ones, and same-origin paths (a proxy on the site).
const isEndpoint = (e: unknown): boolean => {
  if (typeof e != 'string' || !/^((https?:)?\/\/[^/?#]|\/)/i.test(e)) return false;
  try {
    return !!new URL(e, location.href);
  } catch {
    return false;
  }
};

function parseCache(c: StartOptions['cache']): Config['cache'] {
  if (c === undefined || c === false) return;
  if (!isObject(c)) return fail('cache_misconfigured');
  const { storage, duration, cachePrefix = '' } = c;
  const seconds = typeof duration == 'string' ? CACHE_DURATIONS[duration] : duration;
  if (
    !['sessionStorage', 'localStorage', 'agent'].includes(storage) ||
    typeof seconds != 'number' ||
    !(seconds > 0 && seconds <= MAX_CACHE_SECONDS) ||
    typeof cachePrefix != 'string'
  )
    fail('cache_misconfigured');
  return { storage, seconds: seconds as number, prefix: cachePrefix };
}
