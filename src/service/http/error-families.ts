/**
 * The APIs of the service answer errors in different shapes (docs/errors.md). A route names
 * its family in its config (`config: { errorFamily: 'v4' }`); a request no route matched
 * (unknown URL or method) gets the family of its URL prefix. Adding a family is one entry in
 * `FAMILIES`, and one in `PREFIXES` when it owns a prefix.
 */
import type { FastifyRequest } from 'fastify';
import { PROTOCOL_VERSION, type IdentifyErrorResponse } from '../../protocol/index.js';
import { COMMON_ERRORS, ValidationError, type ApiError } from './errors.js';

interface Family {
  body(error: ApiError): unknown;
  /** Whether a `Retry-After` header goes with an error that carries one. */
  retryAfter: boolean;
}

/** The contract's error object: `{error: {code, message, violations?}}`. */
function errorObject(error: ApiError, code: string): { error: { code: string; message: string; violations?: unknown } } {
  const body = { error: { code, message: error.message } };
  return error instanceof ValidationError ? { error: { ...body.error, violations: error.violations } } : body;
}

const FAMILIES = {
  /** Server API v4; v4 removed `Retry-After`. */
  v4: { body: (e) => errorObject(e, e.kind.code), retryAfter: false },
  /** Server API v3, with its PascalCase codes; its error object never carries `violations`. */
  v3: { body: (e) => ({ error: { code: e.kind.v3 ?? e.kind.code, message: e.message } }), retryAfter: true },
  /** The v3 visitor lookup: a plain `{error: "<text>"}`. */
  'v3-plain': { body: (e) => ({ error: e.message }), retryAfter: true },
  /** `POST /`, the agent's endpoint: the protocol's `IdentifyErrorResponse`. */
  agent: {
    body: (e): IdentifyErrorResponse => ({ v: PROTOCOL_VERSION, error: { code: e.kind.code, message: e.message } }),
    retryAfter: true,
  },
  /** The Management API; Fastify's own 400s (unparseable JSON, ...) answer its `invalid_request`. */
  management: { body: (e) => errorObject(e, e.kind.code === COMMON_ERRORS.badRequest.code ? 'invalid_request' : e.kind.code), retryAfter: true },
  /** Everything outside the APIs: the CDN route, the demo, unknown URLs. */
  generic: { body: (e) => errorObject(e, e.kind.code), retryAfter: true },
} as const satisfies Record<string, Family>;

export type ErrorFamily = keyof typeof FAMILIES;

declare module 'fastify' {
  interface FastifyContextConfig {
    errorFamily?: ErrorFamily;
  }
}

/** Families of URLs no route matched, first match wins. */
const PREFIXES: { family: ErrorFamily; matches(method: string, path: string): boolean }[] = [
  { family: 'v4', matches: (_method, path) => path.startsWith('/v4/') },
  // The v3 visitor lookup's URL, when the router refused it (bad percent-encoding, overlong id).
  { family: 'v3-plain', matches: (method, path) => (method === 'GET' || method === 'HEAD') && /^\/visitors\/[^/]+$/.test(path) },
  { family: 'v3', matches: (_method, path) => /^\/(visitors|events)(\/|$)/.test(path) },
  { family: 'agent', matches: (method, path) => method === 'POST' && path === '/' },
  { family: 'management', matches: (_method, path) => /^\/(environments|api-keys|filtering-rules|workspace|encryption-keys|webhooks)(\/|$)/.test(path) },
];

export function familyOf(request: FastifyRequest): Family {
  // A request the router refused (frameworkErrors) has no route and maybe no route options.
  const declared = (request.routeOptions as Partial<typeof request.routeOptions> | undefined)?.config?.errorFamily;
  if (declared !== undefined) return FAMILIES[declared];
  const path = request.url.split('?')[0]!;
  return FAMILIES[PREFIXES.find((p) => p.matches(request.method, path))?.family ?? 'generic'];
}
