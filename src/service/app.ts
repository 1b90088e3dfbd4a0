/** The HTTP application: Fastify with every route of the service registered. */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { cdnRoutes } from './cdn/route.js';
import type { ServiceContext } from './context.js';
import { demoRoutes } from './demo/route.js';
import { AccessLogController } from './http/access-log.js';
import { errorHandler, frameworkErrorHandler, MAX_PATH_PARAMETER_LENGTH } from './http/error-handler.js';
import { inputGuard } from './http/input-guard.js';
import { requestIdGenerator } from './http/request-id.js';
import { applyServerLimits, serverLimitOptions } from './http/server-limits.js';
import { ingestionRoutes } from './ingestion/route.js';
import { managementApiRoutes } from './management-api/index.js';
import { opsRoutes } from './ops/routes.js';
import { serverApiRoutes } from './server-api/index.js';

/** Fastify with what every listener of the service shares: logger, limits, request ids, errors, input checks. */
async function baseApp(ctx: ServiceContext): Promise<FastifyInstance> {
  // Typed as Fastify's base logger so that the app is a plain FastifyInstance.
  const loggerInstance: FastifyBaseLogger = ctx.logger;
  const app = Fastify({
    loggerInstance,
    trustProxy: ctx.config.trustProxy,
    genReqId: requestIdGenerator(ctx.config.trustProxy),
    // One access line per request (access-log.ts).
    logController: new AccessLogController(ctx.logger),
    // Requests still in flight when close() is called get to finish; idle keep-alives are cut.
    forceCloseConnections: 'idle',
    // Router failures (bad percent-encoding, overlong path parameters) in the contract's shapes.
    frameworkErrors: frameworkErrorHandler,
    routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    ...serverLimitOptions(ctx.config),
  });
  applyServerLimits(app.server, ctx.config);
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
  // First, so that every route registered after it, and unknown routes, share them.
  await app.register(errorHandler);
  await app.register(inputGuard);
  return app;
}

export async function buildApp(ctx: ServiceContext): Promise<FastifyInstance> {
  const app = await baseApp(ctx);
  app.addHook('onResponse', async (request, reply) => {
    ctx.metrics.requestDone(request.method, request.routeOptions.url ?? '(unmatched)', reply.statusCode, reply.elapsedTime / 1000);
  });
  await app.register(ingestionRoutes, { ctx });
  await app.register(cdnRoutes, { ctx });
  await app.register(serverApiRoutes, { ctx });
  await app.register(managementApiRoutes, { ctx });
  // With an ops listener, metrics are served there only; without one, to local clients only.
  await app.register(opsRoutes, { ctx, metrics: ctx.config.opsPort === undefined ? 'local-only' : 'none' });
  if (ctx.config.demo) await app.register(demoRoutes, { ctx });
  return app;
}

/** The ops listener's application (`opsPort`): health, readiness and metrics only. */
export async function buildOpsApp(ctx: ServiceContext): Promise<FastifyInstance> {
  const app = await baseApp(ctx);
  await app.register(opsRoutes, { ctx, metrics: 'open' });
  return app;
}
