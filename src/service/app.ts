/** The HTTP application: Fastify with every route of the service registered. */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { cdnRoutes } from './cdn/route.js';
import type { ServiceContext } from './context.js';
import { demoRoutes } from './demo/route.js';
import { ingestionRoutes } from './ingestion/route.js';
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
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({ error: { code: 'not_found', message: `no route for ${request.method} ${request.url.split('?')[0]}` } });
  });
  app.setErrorHandler((error, request, reply) => {
    const err = error as { statusCode?: number; validation?: unknown; message: string };
    if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
      return reply.code(err.statusCode).send({ error: { code: 'request_cannot_be_parsed', message: err.message } });
    }
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send({ error: { code: 'failed', message: 'internal server error' } });
  });

  await app.register(ingestionRoutes, { ctx });
  await app.register(cdnRoutes, { ctx });
  await app.register(serverApiRoutes, { ctx });
  if (ctx.config.demo) await app.register(demoRoutes, { ctx });
  return app;
}
