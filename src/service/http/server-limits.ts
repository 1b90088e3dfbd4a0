/**
 * Limits of the HTTP server, so that slow or numerous clients cannot hold connections forever:
 * a request (headers and body) must arrive within `requestTimeoutMs` (Node answers 408 and
 * closes), headers within the smaller of that and 10 s, an idle connection closes after
 * `requestTimeoutMs` (5 s between keep-alive requests), and at most `maxConnections` are open.
 */
import type { Server } from 'node:http';
import type { ResolvedConfig } from '../config.js';

const HEADERS_TIMEOUT_MS = 10_000;
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

type Limits = Pick<ResolvedConfig, 'requestTimeoutMs' | 'maxConnections'>;

/** Fastify's options for the limits it knows. */
export function serverLimitOptions(config: Limits) {
  const timeout = config.requestTimeoutMs;
  return {
    requestTimeout: timeout,
    connectionTimeout: timeout,
    keepAliveTimeout: Math.min(KEEP_ALIVE_TIMEOUT_MS, timeout),
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
