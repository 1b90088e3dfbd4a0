/**
 * The Server API's error kinds: the contract's table (docs/errors.md), v4 and v3 codes side
 * by side. Routes throw them as `ApiError`s; the service's error plugin renders them in the
 * endpoint's family (v4, v3, or the v3 visitor lookup's plain text).
 */
import { ApiError, COMMON_ERRORS, type ErrorKind } from '../http/errors.js';

export { ApiError };

export const ERRORS = {
  ...COMMON_ERRORS,
  keyRequired: { status: 403, code: 'secret_api_key_required', v3: 'TokenRequired', message: 'secret API key in header is missing or empty' },
  keyNotFound: { status: 403, code: 'secret_api_key_not_found', v3: 'TokenNotFound', message: 'no workspace found for specified secret API key' },
  featureNotEnabled: { status: 403, code: 'feature_not_enabled', v3: 'FeatureNotEnabled', message: 'feature not enabled' },
  eventNotFound: { status: 404, code: 'event_not_found', v3: 'RequestNotFound', message: 'event id not found' },
  visitorNotFound: { status: 404, code: 'visitor_not_found', v3: 'VisitorNotFound', message: 'visitor not found' },
  stateNotReady: { status: 409, code: 'state_not_ready', v3: 'StateNotReady', message: 'resource is not mutable yet, try again' },
} as const satisfies Record<string, ErrorKind>;

/** 400 `request_cannot_be_parsed` with a message naming the parameter, e.g. "invalid limit". */
export function invalid(parameter: string, why?: string): ApiError {
  return new ApiError(ERRORS.badRequest, `invalid ${parameter}${why ? `: ${why}` : ''}`);
}
