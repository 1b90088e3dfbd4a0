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
  /** Overrides the service's retention for this workspace; null = the service's. */
  data_retention_days: number | null;
}

export interface EnvironmentsTable {
  id: string;
  workspace_id: string;
  name: string;
  description: string | null;
  /** 1 for the workspace's default environment (created by the first start), which cannot be deleted. */
  is_default: number;
  created_at: number;
  updated_at: number | null;
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
  /** The plain token of a public key (public anyway: it is in CDN URLs); null for every other type. */
  token: string | null;
  /** Hex SHA-256 of the token (token-hash.ts): how every key is found. */
  token_hash: string;
  status: ApiKeyStatus;
  /** Requests per second. */
  rate_limit: number;
  /** Management keys: JSON array of permission names; null = every permission. */
  permissions: string | null;
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
 * token is gone finds its candidates through an index even when one component drifted. Keyed
 * by (workspace, visitor, key), so that a visitor's keys share a page (migration 017); the
 * lookup index (workspace, key, last_seen_at) finds a key's visitors.
 */
export interface VisitorKeysTable {
  workspace_id: string;
  key: string;
  visitor_id: string;
  last_seen_at: number;
}

/**
 * Relinked visitor IDs (migration 013-visitor-links): the young ID `absorbed_id` of a storage
 * was moved back to the earlier `surviving_id` (identification/relink.ts). One level: when a
 * surviving ID is itself absorbed, its rows are re-pointed.
 */
export interface VisitorLinksTable {
  workspace_id: string;
  absorbed_id: string;
  surviving_id: string;
  linked_at: number;
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

// Sealed results (migration 007-encryption-keys).

export type EncryptionKeyStatus = 'enabled' | 'disabled';

/**
 * An encryption key of sealed results. `*_key` columns hold the key values encrypted under the
 * master key (sealing/key-material.ts), never the plain values.
 */
export interface EncryptionKeysTable {
  id: string;
  workspace_id: string;
  environment_id: string;
  name: string;
  description: string | null;
  status: EncryptionKeyStatus;
  created_at: number;
  last_activated_at: number | null;
  last_deactivated_at: number | null;
  last_rotated_at: number | null;
  /** Null until the first rotation. */
  previous_key: string | null;
  /** The key results are sealed with. */
  current_key: string;
  /** The key the next rotation makes current, known in advance so backends can add it first. */
  next_key: string;
}

// Webhooks (migration 008-webhooks).

export interface WebhooksTable {
  id: string;
  workspace_id: string;
  /** Null: a global webhook, for every environment of the workspace. */
  environment_id: string | null;
  url: string;
  description: string | null;
  status: 'enabled' | 'disabled';
  /** Events are only sent once the endpoint answered a test delivery with 2xx. */
  verified: number;
  /** Sends the flat v3 visit instead of the v4 event. */
  legacy: number;
  basic_auth_username: string | null;
  basic_auth_password: string | null;
  /** HMAC key of the `FPJS-Event-Signature` header; null sends no signature. */
  signing_key: string | null;
  created_at: number;
  last_enabled_at: number | null;
  last_disabled_at: number | null;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** The outbox: one row per (event, webhook), written with the event, drained by the worker. */
/** A delivery's body, apart from its row: written once, while the row is updated on every attempt. */
export interface WebhookDeliveryPayloadsTable {
  delivery_id: string;
  /** The exact body to send. */
  payload: string;
}

export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  event_id: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: number;
  /** After this time a failed attempt ends the delivery as `failed` (24 h after queueing or a resend). */
  give_up_at: number;
  /** A worker holds the delivery until then; an expired lease (a killed worker) frees it. */
  leased_until: number | null;
  lease_owner: string | null;
  created_at: number;
  delivered_at: number | null;
}

/** The rows that queue deliveries: each delivery's row and, apart, its body. */
export interface DeliveryRows {
  rows: WebhookDeliveriesTable[];
  payloads: WebhookDeliveryPayloadsTable[];
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  webhook_id: string;
  attempted_at: number;
  /** Null when no HTTP answer came (refused target, timeout, TLS or network error). */
  http_status: number | null;
  latency_ms: number;
  error: string | null;
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
  visitor_links: VisitorLinksTable;
  visitor_deletions: VisitorDeletionsTable;
  encryption_keys: EncryptionKeysTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_delivery_payloads: WebhookDeliveryPayloadsTable;
  webhook_attempts: WebhookAttemptsTable;
}
