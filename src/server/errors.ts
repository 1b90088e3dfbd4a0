/**
 * The typed errors of the `./server` clients: `ServerApiError` for the Server API (v4 and v3),
 * and its subclass `ManagementApiError`, which adds the `violations` of the Management API.
 */

/** Which API answered: each has its own fallback codes; the Management API adds violations. */
export type Dialect = 'v4' | 'v3' | 'management';

/** One invalid field of a 400 or 422 Management API answer. */
export interface Violation {
  property: string;
  message: string;
}

/**
 * The one error type of the Server API clients. `code` is the service's machine code
 * (`event_not_found`, `TooManyRequests`, ...); `retryAfter` is the `Retry-After` in seconds.
 */
export class ServerApiError extends Error {
  override readonly name: string = 'ServerApiError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfter: number | undefined,
    /** The parsed response body, when it was JSON. */
    readonly body: unknown,
  ) {
    super(message);
  }
}

/**
 * An error of the Management API. `violations` lists the invalid fields of a 400 or 422
 * (empty when the service sent none); `retryAfter` is set on 429.
 */
export class ManagementApiError extends ServerApiError {
  override readonly name: string = 'ManagementApiError';

  constructor(
    status: number,
    code: string,
    message: string,
    retryAfter: number | undefined,
    body: unknown,
    readonly violations: Violation[],
  ) {
    super(status, code, message, retryAfter, body);
  }
}

/**
 * Codes for bodies that carry no code: the v3 visitor lookup answers `{"error": "<text>"}`, and
 * a proxy in between may answer with anything.
 */
const CODE_BY_STATUS: Record<number, Partial<Record<Dialect, string>>> = {
  400: { v4: 'request_cannot_be_parsed', v3: 'RequestCannotBeParsed', management: 'invalid_request' },
  401: { management: 'invalid_api_key' },
  403: { v4: 'forbidden', v3: 'Forbidden', management: 'forbidden' },
  404: { v4: 'not_found', v3: 'NotFound', management: 'not_found' },
  409: { v4: 'state_not_ready', v3: 'StateNotReady', management: 'conflict' },
  413: { v4: 'payload_too_large', v3: 'PayloadTooLarge', management: 'payload_too_large' },
  422: { management: 'validation_failed' },
  429: { v4: 'too_many_requests', v3: 'TooManyRequests', management: 'too_many_requests' },
};
const FAILED: Record<Dialect, string> = { v4: 'failed', v3: 'Failed', management: 'failed' };

/** The typed error of a dialect: `ManagementApiError` for the Management API. */
export function createError(
  dialect: Dialect,
  status: number,
  code: string,
  message: string,
  retryAfter: number | undefined,
  body: unknown,
  violations: Violation[] = [],
): ServerApiError {
  return dialect === 'management'
    ? new ManagementApiError(status, code, message, retryAfter, body, violations)
    : new ServerApiError(status, code, message, retryAfter, body);
}

/** Builds the typed error of a non-2xx response from its status, body and `Retry-After`. */
export function errorFromResponse(
  status: number,
  body: unknown,
  retryAfterHeader: string | null,
  dialect: Dialect,
): ServerApiError {
  let code = CODE_BY_STATUS[status]?.[dialect] ?? FAILED[dialect];
  let message = `HTTP ${status}`;
  let violations: Violation[] = [];
  const error = (body as { error?: unknown } | null)?.error;
  if (typeof error === 'string') {
    message = error;
  } else if (error !== null && typeof error === 'object') {
    const e = error as { code?: unknown; message?: unknown; violations?: unknown };
    if (typeof e.code === 'string') code = e.code;
    if (typeof e.message === 'string') message = e.message;
    violations = readViolations(e.violations);
  }
  // Retry-After as delta-seconds (what the service sends); an HTTP date is not used by it.
  const retryAfter =
    retryAfterHeader !== null && /^\d{1,9}$/.test(retryAfterHeader.trim()) ? Number(retryAfterHeader.trim()) : undefined;
  return createError(dialect, status, code, message, retryAfter, body, violations);
}

/** The well-formed `{property, message}` entries of a `violations` value; [] for anything else. */
function readViolations(value: unknown): Violation[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((v): v is Violation => typeof (v as Violation | null)?.property === 'string' && typeof (v as Violation).message === 'string')
    .map(({ property, message }) => ({ property, message }));
}
