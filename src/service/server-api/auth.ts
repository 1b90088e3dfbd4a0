/**
 * Server API authentication: a secret key of a workspace of this service's region, enabled,
 * within its per-key rate limit. v4 reads `Authorization: Bearer <key>`; v3 reads the
 * `Auth-API-Key` header or the `api_key` query parameter.
 */
import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { findApiKeyWithRegion } from '../store/api-keys.js';
import { RateLimited } from '../http/errors.js';
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

async function authenticate(
  ctx: Pick<ServiceContext, 'store' | 'config' | 'rateLimiter'>,
  request: FastifyRequest,
  version: 'v4' | 'v3',
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
  return { workspaceId: key.workspace_id, keyId: key.id };
}

export interface Authenticator {
  /** Checks the request's key; throws the contract's 403/429 `ApiError`s. */
  authenticate(request: FastifyRequest, version: 'v4' | 'v3'): Promise<Caller>;
  /**
   * Authenticates and runs the read `load` for the caller's workspace. A key's workspace never
   * changes, so once a key was seen the read runs alongside the key check instead of after it
   * (one database round trip of latency instead of two); its result is used only when the
   * check, made afresh on every request, passes. Writes never go through here.
   */
  read<T>(request: FastifyRequest, version: 'v4' | 'v3', load: (workspaceId: string) => Promise<T>): Promise<T>;
}

/** Bound of the token -> workspace memo; past it the memo starts over. */
const MAX_REMEMBERED_KEYS = 10_000;

export function createAuthenticator(ctx: Pick<ServiceContext, 'store' | 'config' | 'rateLimiter'>): Authenticator {
  const workspaceOfToken = new Map<string, string>();
  const check = async (request: FastifyRequest, version: 'v4' | 'v3'): Promise<Caller> => {
    const caller = await authenticate(ctx, request, version);
    const token = presentedKey(request, version)!;
    if (!workspaceOfToken.has(token)) {
      if (workspaceOfToken.size >= MAX_REMEMBERED_KEYS) workspaceOfToken.clear();
      workspaceOfToken.set(token, caller.workspaceId);
    }
    return caller;
  };
  return {
    authenticate: check,
    async read(request, version, load) {
      const token = presentedKey(request, version);
      const known = token === undefined ? undefined : workspaceOfToken.get(token);
      if (known === undefined) return load((await check(request, version)).workspaceId);
      const [caller, result] = await Promise.allSettled([check(request, version), load(known)]);
      if (caller.status === 'rejected') throw caller.reason;
      // Cannot happen (keys do not move between workspaces), but never answer from another one.
      if (caller.value.workspaceId !== known) return load(caller.value.workspaceId);
      if (result.status === 'rejected') throw result.reason;
      return result.value;
    },
  };
}
