/**
 * Errors of the Server API as values: one `ApiError` carries the status, the v4 code and the
 * v3 code, and is rendered in the dialect of the endpoint that failed.
 */

export interface ErrorKind {
  status: number;
  v4: string;
  v3: string;
  message: string;
}

/** The contract's error table (compatibility.md), v4 and v3 codes side by side. */
export const ERRORS = {
  badRequest: { status: 400, v4: 'request_cannot_be_parsed', v3: 'RequestCannotBeParsed', message: 'request cannot be parsed' },
  keyRequired: { status: 403, v4: 'secret_api_key_required', v3: 'TokenRequired', message: 'secret API key in header is missing or empty' },
  keyNotFound: { status: 403, v4: 'secret_api_key_not_found', v3: 'TokenNotFound', message: 'no workspace found for specified secret API key' },
  wrongRegion: { status: 403, v4: 'wrong_region', v3: 'WrongRegion', message: 'wrong region' },
  featureNotEnabled: { status: 403, v4: 'feature_not_enabled', v3: 'FeatureNotEnabled', message: 'feature not enabled' },
  eventNotFound: { status: 404, v4: 'event_not_found', v3: 'RequestNotFound', message: 'event id not found' },
  visitorNotFound: { status: 404, v4: 'visitor_not_found', v3: 'VisitorNotFound', message: 'visitor not found' },
  stateNotReady: { status: 409, v4: 'state_not_ready', v3: 'StateNotReady', message: 'resource is not mutable yet, try again' },
  payloadTooLarge: { status: 413, v4: 'payload_too_large', v3: 'PayloadTooLarge', message: 'payload too large' },
  tooManyRequests: { status: 429, v4: 'too_many_requests', v3: 'TooManyRequests', message: 'too many requests' },
  failed: { status: 500, v4: 'failed', v3: 'Failed', message: 'internal server error' },
} as const satisfies Record<string, ErrorKind>;

export class ApiError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string = kind.message,
    /** Seconds; sent as `Retry-After` by the v3 endpoints only. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** 400 `request_cannot_be_parsed` with a message naming the parameter, e.g. "invalid limit". */
export function invalid(parameter: string, why?: string): ApiError {
  return new ApiError(ERRORS.badRequest, `invalid ${parameter}${why ? `: ${why}` : ''}`);
}

/**
 * How an endpoint renders errors: v4 and v3 use `{error: {code, message}}` with their own
 * codes; the v3 visitor lookup uses a plain `{error: "<text>"}`.
 */
export type ErrorDialect = 'v4' | 'v3' | 'v3-plain';

export function errorBody(error: ApiError, dialect: ErrorDialect): unknown {
  if (dialect === 'v3-plain') return { error: error.message };
  return { error: { code: error.kind[dialect], message: error.message } };
}
