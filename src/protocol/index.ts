/**
 * The wire protocol between the browser agent and the Tessera service, typed once.
 * `docs/protocol.md` is the prose version of this file; keep the two in step.
 *
 * Transport: the agent POSTs the JSON of an `IdentifyRequest` to the endpoint URL, with
 * `Content-Type: text/plain` (a CORS "simple request", so browsers send no preflight) and
 * the query parameter `ci=js/<agent version>`. The service answers 200 with an
 * `IdentifyResponse`, or a 4xx/5xx with an `IdentifyErrorResponse`.
 */

/** Bumped on any incompatible change of request or response. */
export const PROTOCOL_VERSION = 1 as const;

/** Largest request body the service accepts (bytes); larger gets 413 `payload_too_large`. */
export const MAX_REQUEST_BYTES = 64 * 1024;
/** `linkedId` limit in characters. */
export const MAX_LINKED_ID_LENGTH = 256;
/** `url` and `referrer` limit in characters; the agent cuts longer ones to this length. */
export const MAX_URL_LENGTH = 8192;
/** `tags` limit: bytes of its JSON. */
export const MAX_TAGS_JSON_BYTES = 16 * 1024;

export type TagValue = string | number | boolean | null | { [key: string]: unknown };

export interface SdkInfo {
  platform: 'js';
  version: string;
  integrations?: { name: string; version: string }[];
}

/**
 * Browser signals. Every key is optional: a source that failed or is unsupported is left out
 * (its error code may be listed in `IdentifyRequest.signal_errors`). Large values (canvas,
 * audio, WebGL parameter lists) arrive as hashes, never raw.
 */
export interface Signals {
  /** navigator.userAgent */
  user_agent?: string;
  /** navigator.platform */
  platform?: string;
  /** navigator.vendor */
  vendor?: string;
  /** Browser-specific globals present (e.g. 'chrome', 'safari'), sorted. */
  vendor_flavors?: string[];
  /** navigator.languages (or [navigator.language]). */
  languages?: string[];
  /** IANA zone from Intl, e.g. 'Europe/Paris'. */
  timezone?: string;
  /** Minutes, as Date#getTimezoneOffset of January 1st and July 1st (DST independent: the max). */
  timezone_offset?: number;
  /** Screen in CSS pixels, larger side first so rotation does not change it. */
  screen?: { width: number; height: number; color_depth: number; pixel_ratio: number };
  hardware_concurrency?: number;
  device_memory?: number;
  touch?: { max_touch_points: number; touch_event: boolean; touch_start: boolean };
  /** Media features. */
  color_gamut?: 'srgb' | 'p3' | 'rec2020';
  contrast?: number;
  reduced_motion?: boolean;
  reduced_transparency?: boolean;
  forced_colors?: boolean;
  inverted_colors?: boolean;
  monochrome?: number;
  hdr?: boolean;
  /** Hash of a battery of Math function results (engine/OS specific). */
  math?: string;
  /** Storage availability. */
  storage?: {
    session_storage: boolean;
    local_storage: boolean;
    indexed_db: boolean;
    open_database: boolean;
    cookies: boolean;
  };
  /** navigator.userAgentData without versions. */
  ua_data?: { brands: string[]; mobile: boolean; platform: string };
  /** Plugin names, sorted. */
  plugins?: string[];
  pdf_viewer_enabled?: boolean;
  /** Canvas: winding support, and the two drawings hashed separately (text is font/OS sensitive). */
  canvas?: { winding: boolean; geometry: string; text: string };
  webgl?: {
    vendor: string;
    renderer: string;
    /** Hash of the parameter values. */
    params: string;
    /** Hash of the sorted extension list. */
    extensions: string;
  };
  /** Hash (or rounded sum) of an OfflineAudioContext rendering. */
  audio?: string;
  /** Fonts detected by text measurement, sorted. */
  fonts?: string[];
  /** Hash of default text widths per generic family (font preferences). */
  font_preferences?: string;
  /** Float32 NaN byte trick: 255 on x86, 127 on ARM. */
  architecture?: number;
  apple_pay?: number;
  color_scheme?: 'light' | 'dark';
  /** Smart-signal inputs. */
  automation?: { webdriver: boolean; headless_ua: boolean; globals: string[] };
  incognito?: { likely: boolean; method: string; quota_mb?: number };
  developer_tools?: boolean;
  tampering?: {
    /** The same canvas drawn twice gave different pixels (noise-injecting anti-fingerprinting). */
    canvas_mismatch: boolean;
    /** The UA string disagrees with navigator.platform / userAgentData. */
    ua_platform_mismatch: boolean;
    /** Names of built-ins whose toString is not native code. */
    overridden_natives: string[];
  };
}

export type SignalName = keyof Signals;

export interface IdentifyRequest {
  v: typeof PROTOCOL_VERSION;
  /** Public API key. */
  api_key: string;
  /** location.href, with parts hashed when the page asked for urlHashing. */
  url: string;
  /** document.referrer, hashed the same way; omitted when empty. */
  referrer?: string;
  linked_id?: string;
  tags?: TagValue;
  /** The visitor token the service issued before, as read back from storage. */
  token?: string;
  sdk: SdkInfo;
  signals: Signals;
  /** Sources that failed: name -> short error code (e.g. 'timeout', 'unsupported'). */
  signal_errors?: Partial<Record<SignalName, string>>;
}

export interface Confidence {
  score: number;
  version: string;
  comment?: string;
}

export interface IdentifyResponse {
  v: typeof PROTOCOL_VERSION;
  event_id: string;
  visitor_id: string;
  confidence: Confidence;
  visitor_found: boolean;
  suspect_score?: number;
  /** Base64 of the sealed result, or null when no encryption key is enabled. */
  sealed_result: string | null;
  /** Signed visitor token to persist in the browser's storages. */
  token: string;
}

export interface IdentifyErrorResponse {
  v: typeof PROTOCOL_VERSION;
  error: { code: string; message: string };
  /** Set when the service recorded the request under an id (e.g. denied by a rule). */
  event_id?: string | null;
}
