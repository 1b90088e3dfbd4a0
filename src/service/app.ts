/** The HTTP application: Fastify with every route of the service registered. */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { ServiceContext } from './context.js';
import { serverApiRoutes } from './server-api/index.js';

export async function buildApp(ctx: ServiceContext): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.logger as FastifyBaseLogger,
    trustProxy: ctx.config.trustProxy,
    // Requests still in flight when close() is called get to finish.
    forceCloseConnections: 'idle',
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({ error: { code: 'not_found', message: `no route for ${request.method} ${request.url.split('?')[0]}` } });
  });
  await app.register(serverApiRoutes, { ctx });
  return app;
}
