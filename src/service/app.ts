/** The HTTP application: Fastify with every route of the service registered. */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { cdnRoutes } from './cdn/route.js';
import type { ServiceContext } from './context.js';
import { demoRoutes } from './demo/route.js';
import { errorHandler } from './http/error-handler.js';
import { ingestionRoutes } from './ingestion/route.js';
import { managementApiRoutes } from './management-api/index.js';
import { serverApiRoutes } from './server-api/index.js';

export async function buildApp(ctx: ServiceContext): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.logger as FastifyBaseLogger,
    trustProxy: ctx.config.trustProxy,
    // Requests still in flight when close() is called get to finish; idle keep-alives are cut.
    forceCloseConnections: 'idle',
  });
  // While closing, answers to requests still in flight end their keep-alive connections, so
  // close() does not wait for clients' idle sockets to time out.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) void reply.header('Connection', 'close');
    return payload;
  });
  // First, so that every route registered after it, and unknown routes, share it.
  await app.register(errorHandler);
  await app.register(ingestionRoutes, { ctx });
  await app.register(cdnRoutes, { ctx });
  await app.register(serverApiRoutes, { ctx });
  await app.register(managementApiRoutes, { ctx });
  if (ctx.config.demo) await app.register(demoRoutes, { ctx });
  return app;
}
