/**
 * The Server API as one Fastify plugin (v4 and legacy v3), registered by the service's app:
 * `app.register(serverApiRoutes, { ctx })`. Each route names its error family (v4, v3 or the
 * v3 visitor lookup's plain text); the service's error plugin renders failures in it.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.js';
import { createAuthenticator } from './auth.js';
import { registerV3Routes } from './routes-v3.js';
import { registerV4Routes } from './routes-v4.js';


export const serverApiRoutes: FastifyPluginAsync<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  const auth = createAuthenticator(ctx);
  registerV4Routes(app, ctx, auth);
  registerV3Routes(app, ctx, auth);
};
