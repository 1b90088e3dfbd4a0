/**
 * The v4 identification event: the one format of the Server API v4, v4 webhooks and sealed
 * results. Only `event_id` and `timestamp` are always present; a signal that was not
 * collected is omitted, never null.
 */
import type { Confidence, TagValue } from '../protocol/index.js';

export type Window3 = { '5_minutes': number; '1_hour': number; '24_hours': number };

export interface Velocity {
  distinct_ip: Window3;
  distinct_linked_id: Window3;
  distinct_country: Window3;
  events: Window3;
  ip_events: Window3;
  distinct_ip_by_linked_id: Window3;
  distinct_visitor_id_by_linked_id: Window3;
}

export interface Identification {
  visitor_id: string;
  confidence: Confidence;
  visitor_found: boolean;
  /** Unix ms. */
  first_seen_at: number;
  /** Unix ms. */
  last_seen_at: number;
}

export interface BrowserDetails {
  browser_name: string;
  browser_major_version: string;
  browser_full_version: string;
  os: string;
  os_version: string;
  device: string;
}

export interface Sdk {
  platform: 'js' | 'android' | 'ios' | 'unknown';
  version: string;
  integrations?: { name: string; version: string }[];
}

export type BotResult = 'bad' | 'good' | 'not_detected';

export interface BotInfo {
  category: string;
  provider: string;
  name: string;
  identity: string;
  confidence: string;
}

export interface TamperingDetails {
  anomaly_score: number;
  anti_detect_browser: boolean;
}

export interface V4Event {
  event_id: string;
  /** Unix ms. */
  timestamp: number;
  linked_id?: string;
  environment_id?: string;
  suspect?: boolean;
  replayed?: boolean;
  tags?: TagValue;
  url?: string;
  client_referrer?: string;
  ip_address?: string;
  user_agent?: string;
  device?: string;
  os?: string;
  os_version?: string;
  sdk?: Sdk;
  identification?: Identification;
  browser_details?: BrowserDetails;
  bot?: BotResult;
  bot_type?: string;
  bot_info?: BotInfo;
  incognito?: boolean;
  developer_tools?: boolean;
  privacy_settings?: boolean;
  virtual_machine?: boolean;
  virtual_machine_ml_score?: number;
  tampering?: boolean;
  tampering_confidence?: 'low' | 'medium' | 'high';
  tampering_ml_score?: number;
  tampering_details?: TamperingDetails;
  vpn?: boolean;
  vpn_confidence?: 'low' | 'medium' | 'high';
  vpn_origin_timezone?: string;
  vpn_origin_country?: string;
  vpn_methods?: {
    timezone_mismatch: boolean;
    public_vpn: boolean;
    auxiliary_mobile: boolean;
    os_mismatch: boolean;
    relay: boolean;
  };
  proxy?: boolean;
  proxy_confidence?: 'low' | 'medium' | 'high';
  ip_blocklist?: { email_spam: boolean; attack_source: boolean; tor_node: boolean };
  ip_info?: { v4?: IpInfoEntry; v6?: IpInfoEntry };
  suspect_score?: number;
  high_activity_device?: boolean;
  rare_device?: boolean;
  rare_device_percentile_bucket?: string;
  velocity?: Velocity;
  raw_device_attributes?: Record<string, unknown>;
  // Mobile-platform and network signals of the contract's field mapping. Tessera's browser agent
  // does not collect them yet; they are typed so stored or imported events keep them and the
  // v3 mapping covers every row.
  /** iOS events carry the app's bundle id instead of `url`. */
  bundle_id?: string;
  /** Android events carry the app's package name instead of `url`. */
  package_name?: string;
  proxy_details?: { proxy_type: string; last_seen_at?: number };
  proxy_ml_score?: number;
  jailbroken?: boolean;
  frida?: boolean;
  root_apps?: boolean;
  emulator?: boolean;
  cloned_app?: boolean;
  /** Unix ms of the last factory reset. */
  factory_reset_timestamp?: number;
  mitm_attack?: boolean;
  location_spoofing?: boolean;
  proximity?: { id: string; precision_radius: number; confidence: number };
}

export interface IpInfoEntry {
  address: string;
  geolocation?: Record<string, unknown>;
  asn?: string;
  asn_name?: string;
  asn_network?: string;
  datacenter_result?: boolean;
  datacenter_name?: string;
}
