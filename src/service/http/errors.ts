/**
 * Errors as values, for every route of the service. A route (or what it calls) throws an
 * `ApiError`; the one error plugin (`error-handler.ts`) renders it in the body shape of the API
 * the route belongs to. An error's kind carries its status, its machine code (the snake_case
 * code of Server API v4, the agent and the Management API) and the code Server API v3 uses
 * for the same failure, so one throw serves every API.
 */

export interface ErrorKind {
  status: number;
  code: string;
  /** The legacy Server API v3 code of the same failure, for kinds Server API v3 can answer. */
  v3?: string;
  message: string;
}

/** Kinds every API shares; each API adds its own next to its routes (e.g. server-api/errors.ts). */
export const COMMON_ERRORS = {
  badRequest: { status: 400, code: 'request_cannot_be_parsed', v3: 'RequestCannotBeParsed', message: 'request cannot be parsed' },
  unauthorized: { status: 401, code: 'unauthorized', v3: 'Unauthorized', message: 'invalid API key' },
  forbidden: { status: 403, code: 'forbidden', v3: 'Forbidden', message: 'forbidden' },
  wrongRegion: { status: 403, code: 'wrong_region', v3: 'WrongRegion', message: 'wrong region' },
  notFound: { status: 404, code: 'not_found', v3: 'NotFound', message: 'not found' },
  conflict: { status: 409, code: 'conflict', v3: 'Conflict', message: 'conflict' },
  payloadTooLarge: { status: 413, code: 'payload_too_large', v3: 'PayloadTooLarge', message: 'payload too large' },
  tooManyRequests: { status: 429, code: 'too_many_requests', v3: 'TooManyRequests', message: 'too many requests' },
  failed: { status: 500, code: 'failed', v3: 'Failed', message: 'internal server error' },
} as const satisfies Record<string, ErrorKind>;

type KindWithStatus<S extends number> = ErrorKind & { status: S };

export class ApiError extends Error {
  /** Seconds; sent as `Retry-After` where the API's contract has that header. */
  readonly retryAfter?: number;

  constructor(
    readonly kind: ErrorKind,
    message: string = kind.message,
    options: { retryAfter?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.retryAfter = options.retryAfter;
  }

  get status(): number {
    return this.kind.status;
  }

  get code(): string {
    return this.kind.code;
  }
}

export interface Violation {
  property: string;
  message: string;
}

/** Bad input, with one violation per offending property (the contract's validation error). */
export class ValidationError extends ApiError {
  constructor(
    message: string,
    readonly violations: Violation[],
    kind: KindWithStatus<400 | 422> = COMMON_ERRORS.badRequest,
  ) {
    super(kind, message);
  }
}

export class Unauthorized extends ApiError {
  constructor(kind: KindWithStatus<401> = COMMON_ERRORS.unauthorized, message?: string) {
    super(kind, message);
  }
}

export class Forbidden extends ApiError {
  constructor(kind: KindWithStatus<403> = COMMON_ERRORS.forbidden, message?: string) {
    super(kind, message);
  }
}

export class NotFound extends ApiError {
  constructor(kind: KindWithStatus<404> = COMMON_ERRORS.notFound, message?: string) {
    super(kind, message);
  }
}

export class Conflict extends ApiError {
  constructor(kind: KindWithStatus<409> = COMMON_ERRORS.conflict, message?: string) {
    super(kind, message);
  }
}

export class PayloadTooLarge extends ApiError {
  constructor(message?: string) {
    super(COMMON_ERRORS.payloadTooLarge, message);
  }
}

export class RateLimited extends ApiError {
  constructor(retryAfter: number, message?: string) {
    super(COMMON_ERRORS.tooManyRequests, message, { retryAfter });
  }
}

/** An internal failure the caller may retry; never carries a partial payload. */
export class Failed extends ApiError {
  constructor(message?: string, cause?: unknown) {
    super(COMMON_ERRORS.failed, message, { cause });
  }
}
