/**
 * Limits of the HTTP server, so that slow or numerous clients cannot hold connections forever:
 * a request (headers and body) must arrive within `requestTimeoutMs` (Node answers 408 and
 * closes), headers within the smaller of that and 10 s, a body is at most 64 KiB unless a
 * route says otherwise, and at most `maxConnections` connections are open.
 */
import type { Server } from 'node:http';
import { MAX_REQUEST_BYTES } from '../../protocol/index.js';
import type { ResolvedConfig } from '../config.js';

const HEADERS_TIMEOUT_MS = 10_000;
/** Fastify's default: longer than the 60 s idle timeout of common load balancers, which must close first. */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

type Limits = Pick<ResolvedConfig, 'requestTimeoutMs' | 'maxConnections'>;

/** Fastify's options for the limits it knows. */
export function serverLimitOptions(config: Limits) {
  const timeout = config.requestTimeoutMs;
  return {
    requestTimeout: timeout,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    // A socket silent this long is dropped (a client that stopped reading its answer); never
    // before an idle keep-alive connection's own timeout.
    connectionTimeout: Math.max(timeout, KEEP_ALIVE_TIMEOUT_MS + 1000),
    // Every body of the service is small; a route that needs more says so.
    bodyLimit: MAX_REQUEST_BYTES,
    // Node checks request and header timeouts on this interval (30 s by default), so a
    // timeout is enforced within a quarter of itself, at most a second late.
    http: { connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(timeout / 4))) },
  };
}

/** The limits Fastify has no option for, set on its server. */
export function applyServerLimits(server: Server, config: Limits): void {
  server.headersTimeout = Math.min(HEADERS_TIMEOUT_MS, config.requestTimeoutMs);
  server.maxConnections = config.maxConnections;
}
