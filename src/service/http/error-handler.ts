/**
 * The one error handler of the service, for every route and for requests no route matched.
 * Routes throw `ApiError`s; Fastify's own failures (unknown route, unparseable or oversized
 * body, unsupported content type, schema validation) are mapped to the same kinds. Anything
 * else is unexpected: logged once with the request id, answered 500 `failed` with that id in
 * `X-Request-Id`, never with a partial payload. The body shape is the route's API family's.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { familyOf } from './error-families.js';
import { ApiError, COMMON_ERRORS, Failed, NotFound, PayloadTooLarge, ValidationError } from './errors.js';

/** `body.signals.screen.width` from Ajv's `/signals/screen/width` (plus the missing property, if any). */
function propertyOf(context: string | undefined, instancePath: string, missing: unknown): string {
  const parts = [context ?? 'body', ...instancePath.split('/').filter(Boolean)];
  if (typeof missing === 'string') parts.push(missing);
  return parts.join('.');
}

/** Fastify's failures before a handler ran, as the contract's kinds; undefined for the unexpected. */
function fromFastify(error: FastifyError): ApiError | undefined {
  if (error.validation) {
    const violations = error.validation.map((v) => ({
      property: propertyOf(error.validationContext, v.instancePath, v.params['missingProperty']),
      message: v.message ?? 'is invalid',
    }));
    return new ValidationError(`invalid request: ${error.message}`, violations);
  }
  const status = error.statusCode;
  if (status === 413) return new PayloadTooLarge();
  if (status === 404) return new NotFound();
  // Unparseable JSON, an empty body, an unsupported content type, ...
  if (status !== undefined && status >= 400 && status < 500) {
    return new ApiError(COMMON_ERRORS.badRequest, `invalid body: ${error.message}`);
  }
  return undefined;
}

/** The error as the contract's kind; undefined for the unexpected (answered 500 `failed`). */
export function knownError(error: FastifyError | ApiError): ApiError | undefined {
  return error instanceof ApiError ? error : fromFastify(error);
}

function send(request: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply {
  const family = familyOf(request);
  if (family.retryAfter && error.retryAfter !== undefined) void reply.header('Retry-After', String(error.retryAfter));
  // The operator finds the request's log lines by this id.
  if (error.status >= 500) void reply.header('X-Request-Id', request.id);
  return reply.code(error.status).type('application/json; charset=utf-8').send(family.body(error));
}

/**
 * Fastify's failures before routing (`frameworkErrors`): a URL with invalid percent-encoding, a
 * path parameter over the router's length bound. Without this option Fastify answers them
 * itself, in its own shape; here they are the 400 of the URL's family, like any bad parameter.
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const message =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? `invalid request: a path parameter is longer than ${MAX_PATH_PARAMETER_LENGTH} characters`
      : error.code === 'FST_ERR_BAD_URL'
        ? 'invalid request: the URL is not validly percent-encoded'
        : undefined;
  if (message === undefined) {
    request.log.error({ err: error }, 'request failed');
    send(request, reply, new Failed());
    return;
  }
  send(request, reply, new ApiError(COMMON_ERRORS.badRequest, message));
}

/** Fastify's `maxParamLength`: longer path parameters are refused by the router (its default, 100, is the bound). */
export const MAX_PATH_PARAMETER_LENGTH = 100;

function errorHandler(app: FastifyInstance, _options: unknown, done: () => void): void {
  app.setNotFoundHandler((request, reply) => {
    send(request, reply, new NotFound(undefined, `no route for ${request.method} ${request.url.split('?')[0]}`));
  });
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    let known = knownError(error);
    if (known === undefined) {
      request.log.error({ err: error }, 'request failed');
      known = new Failed();
    }
    return send(request, reply, known);
  });
  done();
}

// Applies to the whole application, not only to what this plugin registers: the plugin is not
// encapsulated (what `fastify-plugin` marks; one symbol does not warrant the dependency).
(errorHandler as unknown as Record<symbol, boolean>)[Symbol.for('skip-override')] = true;

export { errorHandler };
