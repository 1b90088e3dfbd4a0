/**
 * The access log: one line per answered request at level info, `request completed`, with the
 * request id, method, URL (its secret query parameters redacted), client address, status and
 * response time in ms. Fastify's own request logging, two lines per request, is off (app.ts).
 *
 * The line goes through a child logger without the service's wildcard redaction (logger.ts):
 * every field is built here and none can hold a secret (no headers; the URL passes the `req`
 * serializer's redactQuery), and that redaction cost about 13 µs per line, which at a few
 * thousand identifications per second is a tenth of a core (docs/performance.md).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

export function accessLogger(logger: Logger): (request: FastifyRequest, reply: FastifyReply) => void {
  const lines = logger.child({}, { redact: { paths: [] } });
  return (request, reply) => {
    if (!lines.isLevelEnabled('info')) return;
    lines.info({ reqId: request.id, req: request, res: { statusCode: reply.statusCode }, responseTime: reply.elapsedTime }, 'request completed');
  };
}
