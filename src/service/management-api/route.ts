/**
 * What every Management API route file needs from the plugin: its route options (permission,
 * error family, body limit) and the authorized caller. Apart from index.ts, which imports the
 * route files, so that no route file imports the plugin back.
 */
import type { FastifyRequest } from 'fastify';
import type { ManagementCaller } from './auth.js';
import type { Permission } from './permissions.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Management API routes: the permission the caller's key must hold. */
    permission?: Permission;
  }
  interface FastifyRequest {
    managementCaller: ManagementCaller | null;
  }
}

/** The contract's body limit. */
export const MANAGEMENT_BODY_LIMIT = 64 * 1024;

export function callerOf(request: FastifyRequest): ManagementCaller {
  if (!request.managementCaller) throw new Error('Management API route without authorization');
  return request.managementCaller;
}

/** Route options of a Management API route that needs `permission`. */
export function route(permission: Permission) {
  return { config: { errorFamily: 'management' as const, permission }, bodyLimit: MANAGEMENT_BODY_LIMIT };
}
