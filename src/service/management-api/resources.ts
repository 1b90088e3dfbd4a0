/** The Management API's resources on the wire (snake_case, RFC 3339 times), from store rows. */
import type { EncryptionKey } from '../sealing/encryption-keys.js';
import type {
  ApiKeysTable,
  EnvironmentsTable,
  FilteringRulesTable,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhooksTable,
} from '../store/schema.js';

export function time(ms: number): string;
export function time(ms: number | null): string | null;
export function time(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

export function environmentJson(row: EnvironmentsTable) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    default: row.is_default === 1,
    created_at: time(row.created_at),
    updated_at: time(row.updated_at),
  };
}

/** Never the token: it is shown once, in the create answer, which adds it. */
export function apiKeyJson(row: ApiKeysTable) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    type: row.type,
    status: row.status,
    environment: row.environment_id,
    rate_limit: row.rate_limit,
    ...(row.type === 'management' ? { permissions: row.permissions === null ? null : (JSON.parse(row.permissions) as string[]) } : {}),
    created_at: time(row.created_at),
    disabled_at: time(row.disabled_at),
  };
}

export function filteringRuleJson(row: FilteringRulesTable) {
  return {
    id: row.id,
    name: row.name,
    environment: row.environment_id,
    expression: row.expression,
    action: row.action,
    status: row.status,
    deny_with: row.deny_with,
    created_at: time(row.created_at),
    updated_at: time(row.updated_at),
  };
}

/** With the key values: a backend unseals with them (the Management API is their only way out). */
export function encryptionKeyJson(key: EncryptionKey) {
  return {
    id: key.id,
    name: key.name,
    description: key.description,
    status: key.status,
    environment: key.environmentId,
    created_at: time(key.createdAt),
    last_activated_at: time(key.lastActivatedAt),
    last_deactivated_at: time(key.lastDeactivatedAt),
    last_rotated_at: time(key.lastRotatedAt),
    previous_token: key.tokens.previous,
    token: key.tokens.current,
    next_token: key.tokens.next,
  };
}

/** Never the signing key (the create answer adds it, once) nor the basic-auth password. */
export function webhookJson(row: WebhooksTable) {
  return {
    id: row.id,
    description: row.description,
    status: row.status,
    verified: row.verified === 1,
    environment: row.environment_id,
    url: row.url,
    legacy: row.legacy === 1,
    basic_auth: row.basic_auth_username === null ? {} : { username: row.basic_auth_username },
    created_at: time(row.created_at),
    last_enabled_at: time(row.last_enabled_at),
    last_disabled_at: time(row.last_disabled_at),
  };
}

/** Without the payload: the event is read through the Server API. */
export function webhookDeliveryJson(row: WebhookDeliveriesTable) {
  return {
    id: row.id,
    event_id: row.event_id,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: time(row.next_attempt_at),
    created_at: time(row.created_at),
    delivered_at: time(row.delivered_at),
  };
}

export function webhookAttemptJson(row: WebhookAttemptsTable & { event_id: string }) {
  return {
    id: row.id,
    delivery_id: row.delivery_id,
    event_id: row.event_id,
    attempted_at: time(row.attempted_at),
    http_status: row.http_status,
    latency_ms: row.latency_ms,
    error: row.error,
  };
}
