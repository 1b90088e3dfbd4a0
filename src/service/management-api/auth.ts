/**
 * Management API access, in the contract's order: the key (401), the API version (400), the
 * key's rate limit (429), the route's permission (403). Runs in `onRequest`, before the body
 * is read or validated: an unauthenticated caller learns nothing about a request's shape.
 */
import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { ApiError, Forbidden, RateLimited, Unauthorized } from '../http/errors.js';
import { findApiKeyByToken } from '../store/api-keys.js';
import { MANAGEMENT_ERRORS } from './errors.js';
import { heldPermissions, type Permission } from './permissions.js';

export const MANAGEMENT_API_VERSION = '2025-11-20';

export interface ManagementCaller {
  workspaceId: string;
  keyId: string;
  permissions: ReadonlySet<Permission>;
}

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer ([A-Za-z0-9_-]+)$/.exec(header.trim()) : null;
  return match?.[1];
}

export async function authorize(
  ctx: Pick<ServiceContext, 'store' | 'rateLimiter'>,
  request: FastifyRequest,
  permission: Permission | undefined,
): Promise<ManagementCaller> {
  const token = bearerToken(request);
  // Uncached on purpose: a key disabled or deleted by any process is refused on its next request.
  const key = token === undefined ? undefined : await findApiKeyByToken(ctx.store, token);
  // Missing, malformed, unknown, disabled or not a management key: one answer, nothing to probe.
  if (key === undefined || key.type !== 'management' || key.status !== 'enabled') {
    throw new Unauthorized(MANAGEMENT_ERRORS.invalidApiKey);
  }

  const version = request.headers['x-api-version'];
  if (version === undefined || version === '') throw new ApiError(MANAGEMENT_ERRORS.apiVersionRequired);
  if (version !== MANAGEMENT_API_VERSION) {
    throw new ApiError(MANAGEMENT_ERRORS.unsupportedApiVersion, `unsupported X-API-Version "${String(version)}": use ${MANAGEMENT_API_VERSION}`);
  }

  const decision = await ctx.rateLimiter.consume(`management:${key.id}`, key.rate_limit, 1);
  if (!decision.allowed) throw new RateLimited(decision.retryAfterSeconds);

  const permissions = heldPermissions(key.permissions);
  if (permission !== undefined && !permissions.has(permission)) {
    throw new Forbidden(MANAGEMENT_ERRORS.forbidden, `this key lacks the ${permission} permission`);
  }
  return { workspaceId: key.workspace_id, keyId: key.id, permissions };
}
