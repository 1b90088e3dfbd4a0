/** What a management key may do: one permission per resource and access (read or write). */

export const PERMISSIONS = [
  'environments:read',
  'environments:write',
  'api_keys:read',
  'api_keys:write',
  'filtering_rules:read',
  'filtering_rules:write',
  'encryption_keys:read',
  'encryption_keys:write',
  'settings:read',
  'settings:write',
  'webhooks:read',
  'webhooks:write',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: unknown): value is Permission {
  return typeof value === 'string' && (PERMISSIONS as readonly string[]).includes(value);
}

/** The permissions a stored key holds (`permissions` column: JSON array, null = all). */
export function heldPermissions(stored: string | null): ReadonlySet<Permission> {
  if (stored === null) return new Set(PERMISSIONS);
  const parsed: unknown = JSON.parse(stored);
  return new Set(Array.isArray(parsed) ? parsed.filter(isPermission) : []);
}

/** A list of permission names, deduplicated, or an Error naming the unknown ones. */
export function parsePermissions(names: readonly unknown[]): Permission[] | Error {
  const unknown = names.filter((n) => !isPermission(n));
  if (unknown.length > 0) return new Error(`unknown permission ${unknown.map((n) => JSON.stringify(n)).join(', ')} (known: ${PERMISSIONS.join(', ')})`);
  return [...new Set(names as Permission[])];
}
