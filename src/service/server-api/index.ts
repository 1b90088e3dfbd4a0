/**
 * The Server API as one Fastify plugin (v4 and legacy v3), registered by the service's app:
 * `app.register(serverApiRoutes, { ctx })`. Each route names its error family (v4, v3 or the
 * v3 visitor lookup's plain text); the service's error plugin renders failures in it.
 */
import type { FastifyPluginCallback } from 'fastify';
import type { ServiceContext } from '../context.js';
import { MAX_REQUEST_BYTES } from '../../protocol/index.js';
import { authenticate, setCaller } from './auth.js';
import { registerV3Routes } from './routes-v3.js';
import { registerV4Routes } from './routes-v4.js';

export const serverApiRoutes: FastifyPluginCallback<{ ctx: ServiceContext }> = (app, { ctx }, done) => {
  // Authentication first (before body parsing and parameter validation), see auth.ts.
  app.addHook('onRequest', async (request) => {
    const version = request.routeOptions.config?.errorFamily === 'v4' ? 'v4' : 'v3';
    setCaller(request, await authenticate(ctx, request, version));
  });
  // The reference server SDKs send update bodies as `text/plain` or without a content type:
  // such bodies are JSON too. Same parser as Fastify's JSON one, so `__proto__` and
  // `constructor.prototype` keys are refused (400) and never reach an object.
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser(['text/plain', '*'], { parseAs: 'string', bodyLimit: MAX_REQUEST_BYTES }, json);
  registerV4Routes(app, ctx);
  registerV3Routes(app, ctx);
  done();
};
