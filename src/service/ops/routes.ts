/**
 * The operations routes, outside the public API and its keys: `GET /health` (the process is
 * up), `GET /ready` (it can serve: checks in readiness.ts) and `GET /metrics` (Prometheus text).
 * On the ops listener (`opsPort`) all three are open; on the main port, without an ops
 * listener, `/metrics` answers only clients on the loopback interface that came through no
 * proxy, so that a public port never exposes it by default.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { NotFound } from '../http/errors.js';
import { checkReadiness } from './readiness.js';

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

/** The peer of the socket is loopback and no proxy forwarded the request. */
function isLocalClient(request: FastifyRequest): boolean {
  const peer = request.socket.remoteAddress ?? '';
  return LOOPBACK.test(peer) && request.headers['x-forwarded-for'] === undefined && request.headers.forwarded === undefined;
}

export function opsRoutes(
  app: FastifyInstance,
  opts: { ctx: ServiceContext; metrics: 'open' | 'local-only' | 'none' },
  done: () => void,
): void {
  const { ctx } = opts;
  app.get('/health', (_request, reply) => reply.send({ status: 'ok' }));

  app.get('/ready', async (_request, reply) => {
    const { ready, checks } = await checkReadiness(ctx);
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'unavailable', checks });
  });

  if (opts.metrics !== 'none') {
    app.get('/metrics', async (request, reply) => {
      if (opts.metrics === 'local-only' && !isLocalClient(request)) throw new NotFound();
      const registry = ctx.metrics.registry;
      return reply.type(registry.contentType).send(await registry.metrics());
    });
  }
  done();
}
