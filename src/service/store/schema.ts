/**
 * The Kysely view of the database: the core tables (this file) composed with the tables of
 * the identification and Server API modules. Both engines share one schema: flags are
 * integers 0/1, times are bigint milliseconds (read back as JS numbers), JSON is text.
 */
import type { IdentificationTables } from '../identification/tables.js';
import type { ServerApiTables } from '../server-api/tables.js';

export interface WorkspacesTable {
  id: string;
  name: string;
  region: 'us' | 'eu' | 'ap';
  deletion_enabled: number;
  created_at: number;
}

export interface EnvironmentsTable {
  id: string;
  workspace_id: string;
  name: string;
  created_at: number;
}

export type ApiKeyType = 'public' | 'secret' | 'proxy' | 'management';
export type ApiKeyStatus = 'enabled' | 'disabled';

export interface ApiKeysTable {
  id: string;
  workspace_id: string;
  environment_id: string | null;
  type: ApiKeyType;
  name: string;
  description: string | null;
  token: string;
  status: ApiKeyStatus;
  /** Requests per second. */
  rate_limit: number;
  created_at: number;
  disabled_at: number | null;
}

export interface FilteringRulesTable {
  id: string;
  environment_id: string;
  position: number;
  name: string;
  expression: string;
  action: 'allow' | 'deny';
  status: 'enabled' | 'disabled';
  deny_with: string | null;
  created_at: number;
  updated_at: number | null;
}

export interface SettingsTable {
  key: string;
  value: string;
}

export interface EventsTable {
  event_id: string;
  workspace_id: string;
  environment_id: string;
  visitor_id: string;
  timestamp: number;
  linked_id: string | null;
  ip_address: string | null;
  url: string | null;
  origin: string | null;
  suspect: number;
  bot: string | null;
  incognito: number | null;
  vpn: number | null;
  tampering: number | null;
  virtual_machine: number | null;
  developer_tools: number | null;
  privacy_settings: number | null;
  suspect_score: number | null;
  sdk_platform: string | null;
  sdk_version: string | null;
  /** Hash of the identification request (token + body), for `replayed` detection. */
  request_hash: string | null;
  /** The full V4Event JSON. */
  payload: string;
}

export interface CoreTables {
  workspaces: WorkspacesTable;
  environments: EnvironmentsTable;
  api_keys: ApiKeysTable;
  filtering_rules: FilteringRulesTable;
  settings: SettingsTable;
  events: EventsTable;
}

export type Database = CoreTables & IdentificationTables & ServerApiTables;
