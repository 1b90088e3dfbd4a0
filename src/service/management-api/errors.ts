/**
 * The Management API's error kinds (docs/management-api.md). Routes throw them as `ApiError`s;
 * the 'management' error family renders them as the contract's error object.
 */
import { COMMON_ERRORS, ValidationError, type ErrorKind, type Violation } from '../http/errors.js';

export const MANAGEMENT_ERRORS = {
  invalidRequest: { status: 400, code: 'invalid_request', message: 'invalid request' },
  apiVersionRequired: { status: 400, code: 'api_version_required', message: 'the X-API-Version header is required' },
  unsupportedApiVersion: { status: 400, code: 'unsupported_api_version', message: 'unsupported X-API-Version' },
  invalidApiKey: { status: 401, code: 'invalid_api_key', message: 'invalid Management API key' },
  validationFailed: { status: 422, code: 'validation_failed', message: 'validation failed' },
  forbidden: COMMON_ERRORS.forbidden,
  notFound: COMMON_ERRORS.notFound,
  conflict: COMMON_ERRORS.conflict,
} as const satisfies Record<string, ErrorKind>;

/** 400 `invalid_request`: a query parameter or the body's shape is wrong. */
export function invalidRequest(violations: Violation[]): ValidationError {
  return new ValidationError(`invalid request: ${describe(violations)}`, violations, MANAGEMENT_ERRORS.invalidRequest);
}

/** 422 `validation_failed`: a well-formed body with an invalid field. */
export function validationFailed(violations: Violation[]): ValidationError {
  return new ValidationError(`validation failed: ${describe(violations)}`, violations, MANAGEMENT_ERRORS.validationFailed);
}

function describe(violations: Violation[]): string {
  return violations.map((v) => `${v.property} ${v.message}`).join('; ');
}
