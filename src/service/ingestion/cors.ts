/**
 * CORS for the ingestion endpoint: any page origin may call it (the public key, not the
 * origin, authenticates; origin restrictions are filtering rules). Hand-written rather than
 * @fastify/cors because that plugin adds a global `OPTIONS *` route, which would collide with
 * other modules' CORS needs in the same app.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

export function allowAnyOrigin(request: FastifyRequest, reply: FastifyReply): void {
  const origin = request.headers.origin;
  void reply.header('Access-Control-Allow-Origin', origin ?? '*');
  void reply.header('Vary', 'Origin');
}

/** Answers a preflight: the agent sends text/plain (no preflight), but a proxy or SDK may send JSON. */
export function answerPreflight(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  allowAnyOrigin(request, reply);
  const requested = request.headers['access-control-request-headers'];
  return reply
    .code(204)
    .header('Access-Control-Allow-Methods', 'POST, OPTIONS')
    .header('Access-Control-Allow-Headers', requested ?? 'Content-Type')
    .header('Access-Control-Max-Age', '600')
    .send();
}
