/**
 * Request and response shapes of the Server API, v4 and legacy v3, shared by the ./server clients and
 * the service routes.
 */
import type { TagValue } from '../protocol/index.js';
import type { V4Event } from './v4-event.js';
import type { V3Event, V3Visit } from './v3-event.js';

/** A point in time: Date, Unix ms, or an RFC 3339 string. */
export type TimeInput = Date | number | string;

/** Filters of `GET /v4/events` (names as on the wire). */
export interface SearchEventsFilter {
  /** 1-100, default 10. */
  limit?: number;
  /** `pagination_key` of the previous page. */
  pagination_key?: string;
  visitor_id?: string;
  linked_id?: string;
  /** An IP address or a CIDR range. */
  ip_address?: string;
  url?: string;
  origin?: string;
  /** One or more environment IDs. */
  environment?: string | string[];
  suspect?: boolean;
  /** `all` = any bot, `none` = no bot detected. */
  bot?: 'all' | 'good' | 'bad' | 'none';
  incognito?: boolean;
  vpn?: boolean;
  tampering?: boolean;
  virtual_machine?: boolean;
  developer_tools?: boolean;
  privacy_settings?: boolean;
  min_suspect_score?: number;
  sdk_version?: string;
  sdk_platform?: string;
  /** Default: 7 days before `end`. */
  start?: TimeInput;
  /** Default: now. */
  end?: TimeInput;
  /** Oldest first instead of newest first. */
  reverse?: boolean;
  /** Count matching events up to this number (1-1000) and return it as `total_hits`. */
  total_hits?: number;
}

export interface SearchEventsResponse {
  events: V4Event[];
  /** Present when more events match. */
  pagination_key?: string;
  /** Present when `total_hits` was asked for. */
  total_hits?: number;
}

/** Body of `PATCH /v4/events/:event_id`: only the given fields change. */
export interface EventUpdate {
  linked_id?: string;
  tags?: TagValue;
  suspect?: boolean;
}

/** Query of the legacy `GET /visitors/:visitor_id`. */
export interface VisitsQuery {
  request_id?: string;
  linked_id?: string;
  /** Events scanned before filtering: default 100, max 500. */
  limit?: number;
  /** `paginationKey` of the previous response. */
  paginationKey?: string;
  /** Deprecated: only events before this Unix ms. */
  before?: number;
}

export interface VisitorHistory {
  visitorId: string;
  visits: V3Visit[];
  /** Request ID of the last scanned event; absent when nothing is left to scan. */
  paginationKey?: string;
  /** Deprecated: timestamp of the last scanned event. */
  lastTimestamp?: number;
}

/** Body of the legacy `PUT /events/:request_id`. */
export interface LegacyEventUpdate {
  linkedId?: string;
  tag?: TagValue;
  suspect?: boolean;
}

/** Query of the legacy `GET /events/search`: the v4 filters with `paginationKey` naming. */
export type LegacySearchEventsFilter = Omit<SearchEventsFilter, 'pagination_key' | 'total_hits'> & {
  /** `paginationKey` of the previous response. */
  pagination_key?: string;
};

export interface LegacySearchEventsResponse {
  events: V3Event[];
  paginationKey?: string;
}
