/**
 * The one error type of the Server API clients. `code` is the service's machine code
 * (`event_not_found`, `TooManyRequests`, ...); `retryAfter` is the v3 `Retry-After` in seconds.
 */
export class ServerApiError extends Error {
  override readonly name = 'ServerApiError';

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
 * Codes for bodies that carry no code: the v3 visitor lookup answers `{"error": "<text>"}`, and
 * a proxy in between may answer with anything.
 */
const CODE_BY_STATUS: Record<number, { v4: string; v3: string }> = {
  400: { v4: 'request_cannot_be_parsed', v3: 'RequestCannotBeParsed' },
  403: { v4: 'forbidden', v3: 'Forbidden' },
  404: { v4: 'not_found', v3: 'NotFound' },
  409: { v4: 'state_not_ready', v3: 'StateNotReady' },
  413: { v4: 'payload_too_large', v3: 'PayloadTooLarge' },
  429: { v4: 'too_many_requests', v3: 'TooManyRequests' },
};

/** Builds the typed error of a non-2xx response from its status, body and `Retry-After`. */
export function errorFromResponse(
  status: number,
  body: unknown,
  retryAfterHeader: string | null,
  dialect: 'v4' | 'v3',
): ServerApiError {
  const fallback = CODE_BY_STATUS[status]?.[dialect] ?? (dialect === 'v4' ? 'failed' : 'Failed');
  let code = fallback;
  let message = `HTTP ${status}`;
  const error = (body as { error?: unknown } | null)?.error;
  if (typeof error === 'string') {
    message = error;
  } else if (error !== null && typeof error === 'object') {
    const e = error as { code?: unknown; message?: unknown };
    if (typeof e.code === 'string') code = e.code;
    if (typeof e.message === 'string') message = e.message;
  }
  // Retry-After as delta-seconds (what the service sends); an HTTP date is not used by it.
  const retryAfter =
    retryAfterHeader !== null && /^\d{1,9}$/.test(retryAfterHeader.trim()) ? Number(retryAfterHeader.trim()) : undefined;
  return new ServerApiError(status, code, message, retryAfter, body);
}
