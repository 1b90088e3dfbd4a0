/**
 * Resources, request bodies and list filters of the Management API (docs/management-api.md).
 * Field names are as on the wire (snake_case); times are RFC 3339 strings in UTC.
 *
 * Encryption keys (next issue) add their resources and bodies here.
 */

/** An RFC 3339 time in UTC, e.g. `2026-11-25T08:00:00.000Z`. */
export type Timestamp = string;

/** One page of a list, oldest first. A cursor is null on the last (next) or first (prev) page. */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
  prevCursor: string | null;
}

/** The wire shape of a list answer; the client turns it into a `Page`. */
export interface ListResponse<T> {
  data: T[];
  metadata: { pagination: { next_cursor: string | null; prev_cursor: string | null } };
}

/** Query of every list. */
export interface ListQuery {
  /** 0 to 101, default 10. */
  limit?: number;
  /** `nextCursor` or `prevCursor` of a previous page. */
  cursor?: string;
}

export type ResourceStatus = 'enabled' | 'disabled';

/** The permissions a management key may hold; a key created without a list holds all. */
export type ManagementPermission =
  | 'environments:read'
  | 'environments:write'
  | 'api_keys:read'
  | 'api_keys:write'
  | 'filtering_rules:read'
  | 'filtering_rules:write'
  | 'settings:read'
  | 'settings:write'
  | 'encryption_keys:read'
  | 'encryption_keys:write'
  | 'webhooks:read'
  | 'webhooks:write';

// Environments (`ae_` IDs)

export interface Environment {
  id: string;
  name: string;
  description: string | null;
  /** The workspace's default environment, which cannot be deleted. */
  default: boolean;
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

export interface EnvironmentCreate {
  /** 3 to 255 characters. */
  name: string;
  /** 3 to 255 characters. */
  description?: string;
}

export type EnvironmentUpdate = Partial<EnvironmentCreate>;

// API keys (`tok_` IDs)

export type ApiKeyType = 'public' | 'secret' | 'proxy' | 'management';

export interface ApiKey {
  id: string;
  name: string;
  description: string | null;
  type: ApiKeyType;
  status: ResourceStatus;
  /** Environment ID; null for a secret or proxy key scoped to the workspace. */
  environment: string | null;
  /** Requests per second, 1 to 100000. */
  rate_limit: number;
  /** Management keys only: the permissions held; null = all. */
  permissions?: ManagementPermission[] | null;
  created_at: Timestamp;
  disabled_at: Timestamp | null;
}

/** The answer of a create: the only time the token is shown. */
export interface CreatedApiKey extends ApiKey {
  token: string;
}

export interface ApiKeyCreate {
  type: ApiKeyType;
  /** 3 to 255 characters. */
  name: string;
  /** 3 to 255 characters. */
  description?: string;
  /** Default: the default environment for public keys, the workspace for secret and proxy keys. */
  environment?: string;
  /** Requests per second, 1 to 100000. */
  rate_limit?: number;
  /** Management keys only; default: all. The calling key must hold each of them. */
  permissions?: ManagementPermission[];
}

export interface ApiKeyUpdate {
  name?: string;
  description?: string;
  /** Disabling sets `disabled_at`; enabling clears it. */
  status?: ResourceStatus;
  rate_limit?: number;
}

export interface ApiKeyListFilter extends ListQuery {
  type?: ApiKeyType;
  status?: ResourceStatus;
  /** Environment ID. */
  environment?: string;
}

// Filtering rules (`tr_` IDs)

export type RuleAction = 'allow' | 'deny';

export interface FilteringRule {
  id: string;
  name: string;
  /** Environment ID. */
  environment: string;
  /** The rule's condition in the expression language. */
  expression: string;
  action: RuleAction;
  status: ResourceStatus;
  /** The error message of a denied request, e.g. `Forbidden`. */
  deny_with: string | null;
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

/** Where a rule goes in its environment's evaluation order (rules are renumbered without gaps). */
export type Placement = { position: number } | { after: string } | { before: string };

export interface FilteringRuleCreate {
  name: string;
  /** Environment ID; default: the default environment. */
  environment?: string;
  expression: string;
  action: RuleAction;
  /** Default `enabled`. */
  status?: ResourceStatus;
  deny_with?: string;
  placement?: Placement;
}

/** Only the given fields change. The client adds the rule's `id` to the body. */
export type FilteringRuleUpdate = Partial<FilteringRuleCreate>;

export interface FilteringRuleListFilter extends ListQuery {
  /** Environment ID. */
  environment?: string;
  status?: ResourceStatus;
  name?: string;
}

/** A sample request to evaluate rules against. */
export interface SampleRequest {
  headers?: Record<string, string>;
  ip?: string;
  user_agent?: string;
  sdk_platform?: string;
  sdk_version?: string;
}

/** A rule given inline to a test, not saved. */
export type FilteringRuleDraft = Omit<FilteringRuleCreate, 'environment' | 'placement'>;

/** Body of `POST /filtering-rules/test`: the rules of an environment, or rules given inline. */
export type FilteringRulesTest =
  | { environment?: string; rules?: never; request: SampleRequest }
  | { rules: FilteringRuleDraft[]; environment?: never; request: SampleRequest };

export interface FilteringRulesTestResult {
  result: RuleAction;
  deny_with: string | null;
  /** The rule that decided (its id, or `rules[i]` for a rule given inline); null when none matched. */
  triggered_rule: string | null;
}

// Encryption keys of sealed results (`ek_` IDs)

/**
 * An encryption key. The three values are base64 of 32 bytes; pass them all to
 * `unsealEventsResponse` so that results sealed before and after a rotation open.
 */
export interface EncryptionKey {
  id: string;
  name: string;
  description: string | null;
  status: ResourceStatus;
  /** Environment ID: the key seals that environment's results while enabled. */
  environment: string;
  created_at: Timestamp;
  last_activated_at: Timestamp | null;
  last_deactivated_at: Timestamp | null;
  last_rotated_at: Timestamp | null;
  /** The value before the last rotation; null until the first rotation. */
  previous_token: string | null;
  /** The value results are sealed with now. */
  token: string;
  /** The value the next rotation seals with. */
  next_token: string;
}

export interface EncryptionKeyCreate {
  /** 3 to 255 characters. */
  name: string;
  /** 3 to 255 characters. */
  description?: string;
  /** Default: the default environment. */
  environment?: string;
  /** Default `enabled`. */
  status?: ResourceStatus;
}

export interface EncryptionKeyUpdate {
  name?: string;
  description?: string | null;
  /** Sets `last_activated_at` or `last_deactivated_at`. */
  status?: ResourceStatus;
}

export interface EncryptionKeyListFilter extends ListQuery {
  status?: ResourceStatus;
  /** Environment ID. */
  environment?: string;
}

// Workspace settings (an extension)

export interface WorkspaceSettings {
  visitor_deletion_enabled: boolean;
  /** 1 to 3650; overrides the service's `--retention-days` for this workspace. */
  data_retention_days: number | null;
}

export interface WorkspaceSettingsUpdate {
  visitor_deletion_enabled?: boolean;
  /** 1 to 3650; null goes back to the service's `--retention-days`. */
  data_retention_days?: number | null;
}

// Webhooks (`wh_` IDs; docs/webhooks.md)

export interface WebhookBasicAuth {
  username: string;
  password: string;
}

export interface Webhook {
  id: string;
  description: string | null;
  status: ResourceStatus;
  /** Events are sent only once a verification delivery was answered 2xx. */
  verified: boolean;
  /** Environment ID; null for a global webhook (every environment of the workspace). */
  environment: string | null;
  /** https:// only. */
  url: string;
  /** Sends the flat v3 visit instead of the v4 event. */
  legacy: boolean;
  /** The username when basic auth is set (never the password); empty otherwise. */
  basic_auth: { username?: string };
  created_at: Timestamp;
  last_enabled_at: Timestamp | null;
  last_disabled_at: Timestamp | null;
}

/** The answer of a create: the only time the signing key is shown. */
export interface CreatedWebhook extends Webhook {
  signing_key: string | null;
}

export interface WebhookCreate {
  /** Must start with `https://`. */
  url: string;
  /** 3 to 255 characters. */
  description?: string | null;
  /** Default `enabled`. */
  status?: ResourceStatus;
  /** Environment ID; null or absent creates a global webhook. */
  environment?: string | null;
  legacy?: boolean;
  basic_auth?: WebhookBasicAuth | null;
}

export interface WebhookUpdate {
  /** A new URL must be verified again. */
  url?: string;
  description?: string | null;
  status?: ResourceStatus;
  /** null removes basic auth. */
  basic_auth?: WebhookBasicAuth | null;
}

export interface WebhookListFilter extends ListQuery {
  status?: ResourceStatus;
  /** Environment ID. */
  environment?: string;
}

/** The answer of a verification: the webhook, and how its endpoint answered the test delivery. */
export interface WebhookVerification extends Webhook {
  verification: { http_status: number | null; latency_ms: number; error: string | null };
}

/** One delivery attempt (an extension): newest first in the list. */
export interface WebhookAttempt {
  id: string;
  delivery_id: string;
  event_id: string;
  attempted_at: Timestamp;
  /** Null when no HTTP answer came (refused target, timeout, network or TLS error). */
  http_status: number | null;
  latency_ms: number;
  error: string | null;
}

/** One queued event of a webhook (an extension). */
export interface WebhookDelivery {
  id: string;
  event_id: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: Timestamp;
  created_at: Timestamp;
  delivered_at: Timestamp | null;
}
