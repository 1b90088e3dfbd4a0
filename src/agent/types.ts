import type { Confidence, TagValue } from '../protocol/index.js';
import type { WithoutDefault } from './without-default.js';

export type Region = 'us' | 'eu' | 'ap';
export type CacheStorageName = 'sessionStorage' | 'localStorage' | 'agent';

export interface UrlHashing {
  path?: boolean;
  query?: boolean;
  fragment?: boolean;
}

export interface CacheOptions {
  storage: CacheStorageName;
  /** 'optimize-cost' = 3600 s, 'aggressive' = 43200 s, or seconds (at most 43200). */
  duration: 'optimize-cost' | 'aggressive' | number;
  cachePrefix?: string;
}

export interface StartOptions {
  /** Public API key; required except in the CDN build, which has it baked in. */
  apiKey?: string;
  region?: Region;
  endpoints?: string | readonly string[] | WithoutDefault<string | readonly string[]>;
  storageKeyPrefix?: string;
  urlHashing?: UrlHashing;
  cache?: false | CacheOptions;
  /** Wrappers built on the agent, as 'name/version'. */
  integrationInfo?: readonly string[];
}

export interface GetOptions {
  /** Milliseconds for the whole call (signals + requests); default 10000. */
  timeout?: number;
  linkedId?: string;
  tag?: TagValue;
  tags?: TagValue;
}

export interface SealedResult {
  base64(): string;
  byteArray(): Uint8Array;
  blob(): Blob;
  toString(): string;
  toJSON(): string;
}

export interface GetResult {
  event_id: string;
  visitor_id: string;
  confidence: Confidence;
  visitor_found: boolean;
  suspect_score?: number;
  sealed_result: SealedResult | null;
  /** Present only when a cache is configured. */
  cache_hit?: boolean;
}

export interface Agent {
  get(options?: GetOptions): Promise<GetResult>;
}
