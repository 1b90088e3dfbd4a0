/**
 * The access log: one line per answered request at level info, `request completed`, with the
 * request id, method, URL (its secret query parameters redacted), client address, status and
 * response time in ms. Fastify's log controller writes two lines per request (`incoming
 * request`, `request completed`); this one writes the second only, with the request's fields.
 * Fastify's other request lines (a response stream's error, a route not found) are its own.
 *
 * The line goes through a child logger without the service's wildcard redaction (logger.ts):
 * every field is built here and none can hold a secret (no headers; the URL passes the `req`
 * serializer's redactQuery), and that redaction cost about 13 µs per line: with Fastify's two
 * lines, the log level `info` cost about a tenth of an identification's CPU (docs/performance.md).
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

export class AccessLogController extends LogController {
  readonly #lines: Logger;

  constructor(logger: Logger) {
    super();
    this.#lines = logger.child({}, { redact: { paths: [] } });
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // A response stream that failed: Fastify's own error line, through the redacting logger.
    if (error) return super.requestCompleted(error, request, reply);
    if (!this.#lines.isLevelEnabled('info')) return;
    this.#lines.info({ [this.requestIdLogLabel]: request.id, req: request, res: { statusCode: reply.statusCode }, responseTime: reply.elapsedTime }, 'request completed');
  }
}
