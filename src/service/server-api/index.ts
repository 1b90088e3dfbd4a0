/**
 * The Server API as one Fastify plugin (v4 and legacy v3), registered by the service's app:
 * `app.register(serverApiRoutes, { ctx })`. Its error handler applies to its routes only and
 * renders every failure in the contract's shape of the endpoint's version; an unexpected
 * failure becomes a 500 `failed`, never a partial payload.
 */
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { createAuthenticator } from './auth.js';
import { ApiError, ERRORS, errorBody, type ErrorDialect } from './errors.js';
import { registerV3Routes } from './routes-v3.js';
import { registerV4Routes } from './routes-v4.js';

function toApiError(error: FastifyError | ApiError | Error): ApiError | undefined {
  if (error instanceof ApiError) return error;
  const status = (error as FastifyError).statusCode;
  if (status === 413) return new ApiError(ERRORS.payloadTooLarge);
  // Fastify's own 4xx before our handler ran: unparseable JSON, wrong content type, ...
  if (status !== undefined && status >= 400 && status < 500) {
    return new ApiError(ERRORS.badRequest, `invalid body: ${error.message}`);
  }
  return undefined;
}

export const serverApiRoutes: FastifyPluginAsync<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const dialect = ((request.routeOptions.config as { dialect?: ErrorDialect }).dialect ?? 'v4') as ErrorDialect;
    let apiError = toApiError(error);
    if (apiError === undefined) {
      request.log.error({ err: error }, 'server API request failed');
      apiError = new ApiError(ERRORS.failed);
    }
    if (apiError.retryAfterSeconds !== undefined && dialect !== 'v4') {
      void reply.header('Retry-After', String(apiError.retryAfterSeconds));
    }
    return reply.code(apiError.kind.status).type('application/json; charset=utf-8').send(errorBody(apiError, dialect));
  });
  const auth = createAuthenticator(ctx);
  registerV4Routes(app, ctx, auth);
  registerV3Routes(app, ctx, auth);
};
