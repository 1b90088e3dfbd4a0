/**
 * Request ids: random (unique across instances and restarts, unlike Fastify's counter), or,
 * behind a trusted proxy (`trustProxy`), the proxy's `X-Request-Id` so that one id follows the
 * request through both logs. An incoming id is taken only when it is short and plain, so that
 * it cannot forge log content.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const PLAIN_ID = /^[\w.:@/+=-]{1,128}$/;

export function requestIdGenerator(trustProxy: boolean): (request: IncomingMessage) => string {
  return (request) => {
    const incoming = trustProxy ? request.headers['x-request-id'] : undefined;
    return typeof incoming === 'string' && PLAIN_ID.test(incoming) ? incoming : randomUUID();
  };
}
