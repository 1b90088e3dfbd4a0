/** The Management API's resources on the wire (snake_case, RFC 3339 times), from store rows. */
import type { ApiKeysTable, EnvironmentsTable, FilteringRulesTable } from '../store/schema.js';

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
