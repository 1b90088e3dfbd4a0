/**
 * `GET /v4/<public key>` (ESM) and `GET /v4/<public key>/iife.js`: the agent with the key and
 * this service's URL baked in, so a page needs no options. Cacheable (ETag, max-age);
 * unknown or disabled keys get a 404 with a JSON error.
 */
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { ApiError, COMMON_ERRORS, NotFound } from '../http/errors.js';
import { packageRoot } from '../package-root.js';
import { findApiKeyWithRegionCached } from '../store/api-keys.js';
import { BUNDLE_FILES, createBundleCache, type BundleFormat } from './agent-bundle.js';

const KEY_NOT_FOUND = { status: 404, code: 'public_api_key_not_found', message: 'no enabled public API key matches this URL' } as const;
const AGENT_NOT_BUILT = { status: 503, code: 'agent_not_built', message: 'the agent build is missing' } as const;

export const CDN_CACHE_CONTROL = 'public, max-age=3600, stale-while-revalidate=86400';

/**
 * The URL pages reach this service at, without a trailing slash: configured (an origin, or an
 * origin and a proxied path), or the request's origin (Host, or X-Forwarded-* with trustProxy).
 */
export function serviceBaseUrl(ctx: ServiceContext, request: FastifyRequest): string {
  if (ctx.config.publicUrl) return ctx.config.publicUrl;
  return new URL(`${request.protocol}://${request.host}`).origin;
}

export async function cdnRoutes(app: FastifyInstance, opts: { ctx: ServiceContext; agentDir?: string }): Promise<void> {
  const { ctx } = opts;
  const agentDir = opts.agentDir ?? join(packageRoot(), 'dist', 'agent');
  const bundles = createBundleCache(agentDir);

  const serve = async (format: BundleFormat, request: FastifyRequest<{ Params: { key: string } }>, reply: FastifyReply) => {
    void reply.header('Access-Control-Allow-Origin', '*').header('Cross-Origin-Resource-Policy', 'cross-origin');
    const apiKey = request.params.key;
    const key = await findApiKeyWithRegionCached(ctx.store, apiKey);
    if (!key || key.type !== 'public' || key.status !== 'enabled') throw new NotFound(KEY_NOT_FOUND);
    let base: string;
    try {
      base = serviceBaseUrl(ctx, request);
    } catch {
      throw new ApiError(COMMON_ERRORS.badRequest, 'invalid Host header');
    }
    const bundle = await bundles.get(format, apiKey, `${base}/`);
    if (!bundle) {
      const message = `the agent build dist/agent/${BUNDLE_FILES[format]} is missing: run "npm run build" in the service's directory`;
      throw new ApiError(AGENT_NOT_BUILT, message, { retryAfter: 30 });
    }
    void reply
      .header('Cache-Control', CDN_CACHE_CONTROL)
      .header('ETag', bundle.etag)
      .header('Content-Type', 'text/javascript; charset=utf-8');
    if (!ctx.config.publicUrl) void reply.header('Vary', 'Host, X-Forwarded-Host, X-Forwarded-Proto');
    const ifNoneMatch = request.headers['if-none-match'];
    if (ifNoneMatch && ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === bundle.etag)) {
      return reply.code(304).send();
    }
    return reply.send(bundle.body);
  };

  // Not the Server API, though under /v4/: its errors are generic ones.
  const config = { errorFamily: 'generic' as const };
  app.get<{ Params: { key: string } }>('/v4/:key', { config }, (request, reply) => serve('esm', request, reply));
  app.get<{ Params: { key: string } }>('/v4/:key/iife.js', { config }, (request, reply) => serve('iife', request, reply));
}
