/**
 * The Kysely view of the database: every table of the service, in one place. Both engines
 * share one schema: flags are integers 0/1, times are bigint milliseconds (read back as JS
 * numbers), JSON is text.
 */

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
  /** `ip_address` as a sortable key (ip-sort.ts), for CIDR ranges (migration 009). */
  ip_sort: string | null;
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

// Identification (migration 002-identification).

/** One row per visitor (per browser): when it was seen and what it looked like lately. */
export interface VisitorsTable {
  visitor_id: string;
  workspace_id: string;
  first_seen_at: number;
  last_seen_at: number;
  visit_count: number;
  /** Last visit that came with this visitor's own valid token: proof that the browser is alive. */
  last_token_at: number | null;
  /** `VisitorProfile` JSON (profile.ts): recent values of every component, networks, languages. */
  profile: string;
}

/**
 * Blocking keys: several hashes of stable signal subsets per visitor, so that a visit whose
 * token is gone finds its candidates through an index even when one component drifted.
 */
export interface VisitorKeysTable {
  workspace_id: string;
  key: string;
  visitor_id: string;
  last_seen_at: number;
}

// Server API (migration 003-server-api).

/**
 * One row per accepted visitor-deletion request: the background job executes rows still
 * `scheduled`; the rows of the last day also count against the workspace's deletion limits.
 */
export interface VisitorDeletionsTable {
  id: string;
  workspace_id: string;
  visitor_id: string;
  requested_at: number;
  status: 'scheduled' | 'done';
  completed_at: number | null;
  /** Events removed when executed (for operators; null while scheduled). */
  deleted_events: number | null;
}

export interface Database {
  workspaces: WorkspacesTable;
  environments: EnvironmentsTable;
  api_keys: ApiKeysTable;
  filtering_rules: FilteringRulesTable;
  settings: SettingsTable;
  events: EventsTable;
  visitors: VisitorsTable;
  visitor_keys: VisitorKeysTable;
  visitor_deletions: VisitorDeletionsTable;
}
