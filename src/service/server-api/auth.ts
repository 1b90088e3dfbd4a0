/**
 * Server API authentication: a secret key of a workspace of this service's region, enabled,
 * within its per-key rate limit. v4 reads `Authorization: Bearer <key>`; v3 reads the
 * `Auth-API-Key` header or the `api_key` query parameter.
 *
 * It runs as the Server API plugin's `onRequest` hook, before the body is parsed, parameters
 * are validated or any data is read: an unauthenticated caller learns nothing about its
 * parameters, and a refused (403) or rate-limited (429) request costs one key lookup, never a
 * data query.
 */
import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { findApiKeyWithRegion } from '../store/api-keys.js';
import { RateLimited } from '../http/errors.js';
import { ApiError, ERRORS } from './errors.js';

export interface Caller {
  workspaceId: string;
  keyId: string;
  /** The key's environment: it sees only that environment's events; null = the whole workspace. */
  environmentId: string | null;
}

export type ApiVersion = 'v4' | 'v3';

function presentedKey(request: FastifyRequest, version: ApiVersion): string | undefined {
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

/** Checks the request's key; throws the contract's 403/429 `ApiError`s. */
export async function authenticate(
  ctx: Pick<ServiceContext, 'store' | 'config' | 'rateLimiter'>,
  request: FastifyRequest,
  version: ApiVersion,
): Promise<Caller> {
  const token = presentedKey(request, version);
  if (token === undefined) throw new ApiError(ERRORS.keyRequired);
  // Uncached: a key disabled anywhere is refused on its next request.
  const key = await findApiKeyWithRegion(ctx.store, token);
  // A public or management key, or a disabled one, is no valid secret key: same answer as unknown.
  if (key === undefined || key.type !== 'secret' || key.status !== 'enabled') throw new ApiError(ERRORS.keyNotFound);
  if (key.region !== ctx.config.region) throw new ApiError(ERRORS.wrongRegion);
  const decision = await ctx.rateLimiter.consume(`server-api:${key.id}`, key.rate_limit, 1);
  if (!decision.allowed) throw new RateLimited(decision.retryAfterSeconds);
  return { workspaceId: key.workspace_id, keyId: key.id, environmentId: key.environment_id };
}

const callers = new WeakMap<FastifyRequest, Caller>();

export function setCaller(request: FastifyRequest, caller: Caller): void {
  callers.set(request, caller);
}

/** The authenticated caller of a Server API request (set by the plugin's onRequest hook). */
export function callerOf(request: FastifyRequest): Caller {
  const caller = callers.get(request);
  // Only reachable if a route escaped the plugin's hook: refuse rather than serve unauthenticated.
  if (caller === undefined) throw new ApiError(ERRORS.keyRequired);
  return caller;
}
