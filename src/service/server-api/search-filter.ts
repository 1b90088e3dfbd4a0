/**
 * The event search of the Server API (v4 `GET /v4/events`, v3 `GET /events/search`) as a
 * typed filter, parsed from the query string with the contract's defaults and ranges.
 */
import { ApiError, ERRORS } from './errors.js';
import { decodePaginationKey, type Cursor } from './pagination-key.js';
import {
  all,
  parseBoolParam,
  parseEnumParam,
  parseIntParam,
  parseIpFilter,
  parseStringParam,
  parseTimeParam,
  single,
  type IpFilter,
  type RawQuery,
} from './params.js';

/** Event columns holding a 0/1 signal; filtering on one drops events that lack the signal. */
export const SIGNAL_FILTERS = [
  'incognito',
  'vpn',
  'tampering',
  'virtual_machine',
  'developer_tools',
  'privacy_settings',
] as const;
export type SignalFilter = (typeof SIGNAL_FILTERS)[number];

export const BOT_FILTERS = ['all', 'good', 'bad', 'none'] as const;

export const DEFAULT_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;
export const SEARCH_LIMIT = { min: 1, max: 100, default: 10 };
export const TOTAL_HITS = { min: 1, max: 1000 };

export interface EventSearch {
  start: number;
  end: number;
  limit: number;
  /** Oldest first. */
  reverse: boolean;
  /** Continue after this event. */
  cursor?: Cursor;
  visitorId?: string;
  linkedId?: string;
  ip?: IpFilter;
  url?: string;
  origin?: string;
  environments?: string[];
  suspect?: boolean;
  bot?: (typeof BOT_FILTERS)[number];
  signals: Partial<Record<SignalFilter, boolean>>;
  minSuspectScore?: number;
  sdkVersion?: string;
  sdkPlatform?: string;
  /** Count matches up to this many. */
  totalHits?: number;
}

/**
 * Parses the search query. `paginationParams` lists the names the cursor may come under
 * (v4: `pagination_key`; v3 also accepts `paginationKey`).
 */
export function parseEventSearch(
  query: RawQuery,
  now: number,
  paginationParams: readonly string[] = ['pagination_key'],
): EventSearch {
  const end = parseTimeParam(query, 'end') ?? now;
  const start = parseTimeParam(query, 'start') ?? end - DEFAULT_WINDOW_MS;
  if (start > end) throw new ApiError(ERRORS.badRequest, 'invalid start: must not be after end');

  const search: EventSearch = {
    start,
    end,
    limit: parseIntParam(query, 'limit', SEARCH_LIMIT) ?? SEARCH_LIMIT.default,
    reverse: parseBoolParam(query, 'reverse') ?? false,
    signals: {},
  };
  for (const name of paginationParams) {
    const key = single(query, name);
    if (key !== undefined) search.cursor = decodePaginationKey(key, name);
  }
  const set = <K extends keyof EventSearch>(key: K, value: EventSearch[K] | undefined) => {
    if (value !== undefined) search[key] = value;
  };
  set('visitorId', parseStringParam(query, 'visitor_id', 64));
  set('linkedId', parseStringParam(query, 'linked_id', 256));
  set('ip', parseIpFilter(query, 'ip_address'));
  set('url', parseStringParam(query, 'url', 4096));
  set('origin', parseStringParam(query, 'origin', 2048));
  const environments = all(query, 'environment');
  if (environments !== undefined) {
    if (environments.some((e) => e === '' || e.length > 64)) throw new ApiError(ERRORS.badRequest, 'invalid environment');
    search.environments = environments;
  }
  set('suspect', parseBoolParam(query, 'suspect'));
  set('bot', parseEnumParam(query, 'bot', BOT_FILTERS));
  for (const name of SIGNAL_FILTERS) {
    const value = parseBoolParam(query, name);
    if (value !== undefined) search.signals[name] = value;
  }
  set('minSuspectScore', parseIntParam(query, 'min_suspect_score', { min: 0, max: 1_000_000 }));
  set('sdkVersion', parseStringParam(query, 'sdk_version', 64));
  set('sdkPlatform', parseStringParam(query, 'sdk_platform', 16));
  set('totalHits', parseIntParam(query, 'total_hits', TOTAL_HITS));
  return search;
}
