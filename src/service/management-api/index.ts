/**
 * The Management API as one Fastify plugin, at the root of the service:
 * `app.register(managementApiRoutes, { ctx })`. Every route names its permission; the
 * `onRequest` hook authorizes (auth.ts) before anything else runs, and handlers read the caller
 * with `callerOf(request)` (route.ts). Errors render in the 'management' family (the contract's object).
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../context.js';
import { apiKeyRoutes } from './api-keys.js';
import { authorize } from './auth.js';
import { encryptionKeyRoutes } from './encryption-keys.js';
import { invalidRequest } from './errors.js';
import { environmentRoutes } from './environments.js';
import { filteringRuleRoutes } from './filtering-rules.js';
import { webhookRoutes } from './webhooks.js';
import { workspaceSettingsRoutes } from './workspace-settings.js';

export function managementApiRoutes(app: FastifyInstance, { ctx }: { ctx: ServiceContext }, done: () => void): void {
  app.decorateRequest('managementCaller', null);
  // JSON, where an empty body is no body: clients send `Content-Type: application/json` on every
  // request, DELETE and GET included. Only this plugin's routes are affected.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, parsed) => {
    if (body === '') return parsed(null, undefined);
    try {
      parsed(null, JSON.parse(body as string));
    } catch {
      parsed(invalidRequest([{ property: 'body', message: 'is not valid JSON' }]), undefined);
    }
  });
  app.addHook('onRequest', async (request) => {
    request.managementCaller = await authorize(ctx, request, request.routeOptions.config.permission);
  });
  environmentRoutes(app, ctx);
  apiKeyRoutes(app, ctx);
  filteringRuleRoutes(app, ctx);
  workspaceSettingsRoutes(app, ctx);
  encryptionKeyRoutes(app, ctx);
  webhookRoutes(app, ctx);
  done();
}
