/**
 * The Management API as one Fastify plugin, at the root of the service:
 * `app.register(managementApiRoutes, { ctx })`. Every route names its permission; the
 * `onRequest` hook authorizes (auth.ts) before anything else runs, and handlers read the caller
 * with `callerOf(request)`. Errors render in the 'management' family (the contract's object).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { apiKeyRoutes } from './api-keys.js';
import { authorize, type ManagementCaller } from './auth.js';
import { environmentRoutes } from './environments.js';
import { filteringRuleRoutes } from './filtering-rules.js';
import type { Permission } from './permissions.js';
import { webhookRoutes } from './webhooks.js';
import { workspaceSettingsRoutes } from './workspace-settings.js';

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

export async function managementApiRoutes(app: FastifyInstance, { ctx }: { ctx: ServiceContext }): Promise<void> {
  app.decorateRequest('managementCaller', null);
  app.addHook('onRequest', async (request) => {
    request.managementCaller = await authorize(ctx, request, request.routeOptions.config.permission);
  });
  environmentRoutes(app, ctx);
  apiKeyRoutes(app, ctx);
  filteringRuleRoutes(app, ctx);
  workspaceSettingsRoutes(app, ctx);
  webhookRoutes(app, ctx);
}
