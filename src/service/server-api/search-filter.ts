/**
 * The event search of the Server API (v4 `GET /v4/events`, v3 `GET /events/search`) as a
 * typed filter, parsed from the query string with the contract's defaults and ranges.
 */
import type { PayloadCondition } from '../store/event-search.js';
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
  rejectUnknownParams,
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

const CONFIDENCE = ['low', 'medium', 'high'] as const;

/**
 * Filters of the reference SDKs on fields only the stored payload holds (no column): each is
 * applied to the scanned events through the payload JSON. `any`: true matches when any of the
 * paths is true, false when all are false.
 */
const PAYLOAD_FILTERS: Record<string, { paths: string[][]; type: 'boolean' | 'any' | readonly string[] | 'string' }> = {
  proxy: { paths: [['proxy']], type: 'boolean' },
  vpn_confidence: { paths: [['vpn_confidence']], type: CONFIDENCE },
  anti_detect_browser: { paths: [['tampering_details', 'anti_detect_browser']], type: 'boolean' },
  tor_node: { paths: [['ip_blocklist', 'tor_node']], type: 'boolean' },
  ip_blocklist: { paths: [['ip_blocklist', 'email_spam'], ['ip_blocklist', 'attack_source'], ['ip_blocklist', 'tor_node']], type: 'any' },
  datacenter: { paths: [['ip_info', 'v4', 'datacenter_result'], ['ip_info', 'v6', 'datacenter_result']], type: 'any' },
  high_activity: { paths: [['high_activity_device']], type: 'boolean' },
  rare_device: { paths: [['rare_device']], type: 'boolean' },
  jailbroken: { paths: [['jailbroken']], type: 'boolean' },
  frida: { paths: [['frida']], type: 'boolean' },
  root_apps: { paths: [['root_apps']], type: 'boolean' },
  emulator: { paths: [['emulator']], type: 'boolean' },
  cloned_app: { paths: [['cloned_app']], type: 'boolean' },
  mitm_attack: { paths: [['mitm_attack']], type: 'boolean' },
  location_spoofing: { paths: [['location_spoofing']], type: 'boolean' },
  bundle_id: { paths: [['bundle_id']], type: 'string' },
  package_name: { paths: [['package_name']], type: 'string' },
  proximity_id: { paths: [['proximity', 'id']], type: 'string' },
  asn: { paths: [['ip_info', 'v4', 'asn'], ['ip_info', 'v6', 'asn']], type: 'string' },
};

function parsePayloadFilter(query: RawQuery, name: string): PayloadCondition | undefined {
  const { paths, type } = PAYLOAD_FILTERS[name]!;
  if (type === 'boolean' || type === 'any') {
    const value = parseBoolParam(query, name);
    if (value === undefined) return undefined;
    return { paths, value, combine: type === 'any' && value ? 'or' : 'and' };
  }
  const value = type === 'string' ? parseStringParam(query, name, 256) : parseEnumParam(query, name, type);
  return value === undefined ? undefined : { paths, value, combine: 'or' };
}

/** Parameters each version's search knows; any other one is a 400 (never silently ignored). */
const COMMON_PARAMS = [
  'start', 'end', 'limit', 'reverse', 'visitor_id', 'linked_id', 'ip_address', 'url', 'origin', 'environment',
  'suspect', 'bot', 'min_suspect_score', 'sdk_version', 'sdk_platform', 'ii',
  ...['incognito', 'vpn', 'tampering', 'virtual_machine', 'developer_tools', 'privacy_settings'],
  ...Object.keys(PAYLOAD_FILTERS),
];
const KNOWN_PARAMS = {
  v4: new Set([...COMMON_PARAMS, 'pagination_key', 'total_hits']),
  v3: new Set([...COMMON_PARAMS, 'pagination_key', 'paginationKey', 'api_key']),
};

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
  payload: PayloadCondition[];
  /** Count matches up to this many. */
  totalHits?: number;
}

/**
 * Parses the search query of `version` (v3 also accepts `paginationKey` and `api_key`, not
 * `total_hits`). A caller whose key is scoped to an environment searches that environment
 * only, whatever `environment` asks for.
 */
export function parseEventSearch(
  query: RawQuery,
  now: number,
  version: 'v4' | 'v3' = 'v4',
  scope: string | null = null,
): EventSearch {
  rejectUnknownParams(query, KNOWN_PARAMS[version]);
  const paginationParams = version === 'v4' ? ['pagination_key'] : ['pagination_key', 'paginationKey'];
  const end = parseTimeParam(query, 'end') ?? now;
  const start = parseTimeParam(query, 'start') ?? end - DEFAULT_WINDOW_MS;
  if (start > end) throw new ApiError(ERRORS.badRequest, 'invalid start: must not be after end');

  const search: EventSearch = {
    start,
    end,
    limit: parseIntParam(query, 'limit', SEARCH_LIMIT) ?? SEARCH_LIMIT.default,
    reverse: parseBoolParam(query, 'reverse') ?? false,
    signals: {},
    payload: [],
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
  if (scope !== null) search.environments = (search.environments ?? [scope]).filter((e) => e === scope);
  set('suspect', parseBoolParam(query, 'suspect'));
  set('bot', parseEnumParam(query, 'bot', BOT_FILTERS));
  for (const name of SIGNAL_FILTERS) {
    const value = parseBoolParam(query, name);
    if (value !== undefined) search.signals[name] = value;
  }
  set('minSuspectScore', parseIntParam(query, 'min_suspect_score', { min: 0, max: 1_000_000 }));
  set('sdkVersion', parseStringParam(query, 'sdk_version', 64));
  set('sdkPlatform', parseStringParam(query, 'sdk_platform', 16));
  for (const name of Object.keys(PAYLOAD_FILTERS)) {
    const condition = parsePayloadFilter(query, name);
    if (condition !== undefined) search.payload.push(condition);
  }
  if (version === 'v4') set('totalHits', parseIntParam(query, 'total_hits', TOTAL_HITS));
  return search;
}
