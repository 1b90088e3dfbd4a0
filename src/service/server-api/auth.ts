/**
 * Server API authentication: a secret key of a workspace of this service's region, enabled,
 * within its per-key rate limit. v4 reads `Authorization: Bearer <key>`; v3 reads the
 * `Auth-API-Key` header or the `api_key` query parameter.
 */
import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { ApiError, ERRORS } from './errors.js';

export interface Caller {
  workspaceId: string;
  keyId: string;
}

function presentedKey(request: FastifyRequest, version: 'v4' | 'v3'): string | undefined {
  if (version === 'v4') {
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    return match?.[1];
  }
  const header = request.headers['auth-api-key'];
  if (typeof header === 'string' && header.trim() !== '') return header.trim();
  const query = (request.query as Record<string, unknown> | undefined)?.['api_key'];
  return typeof query === 'string' && query !== '' ? query : undefined;
}

export async function authenticate(
  ctx: Pick<ServiceContext, 'db' | 'config' | 'rateLimiter'>,
  request: FastifyRequest,
  version: 'v4' | 'v3',
): Promise<Caller> {
  const token = presentedKey(request, version);
  if (token === undefined) throw new ApiError(ERRORS.keyRequired);
  const key = await ctx.db
    .selectFrom('api_keys')
    .innerJoin('workspaces', 'workspaces.id', 'api_keys.workspace_id')
    .select(['api_keys.id', 'api_keys.workspace_id', 'api_keys.type', 'api_keys.status', 'api_keys.rate_limit', 'workspaces.region'])
    .where('api_keys.token', '=', token)
    .executeTakeFirst();
  // A public or management key, or a disabled one, is no valid secret key: same answer as unknown.
  if (key === undefined || key.type !== 'secret' || key.status !== 'enabled') throw new ApiError(ERRORS.keyNotFound);
  if (key.region !== ctx.config.region) throw new ApiError(ERRORS.wrongRegion);
  const decision = await ctx.rateLimiter.consume(`server-api:${key.id}`, key.rate_limit, 1);
  if (!decision.allowed) {
    throw new ApiError(ERRORS.tooManyRequests, ERRORS.tooManyRequests.message, decision.retryAfterSeconds);
  }
  return { workspaceId: key.workspace_id, keyId: key.id };
}
