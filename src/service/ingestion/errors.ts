/**
 * The agent endpoint's own error kinds; with the common ones (request_cannot_be_parsed,
 * wrong_region, payload_too_large, too_many_requests, failed) they are the contract's codes
 * (docs/errors.md), which the agent passes to the page unchanged.
 */
import { Forbidden, type ErrorKind } from '../http/errors.js';

const KINDS = {
  publicKeyRequired: { status: 403, code: 'public_api_key_required', message: 'public API key is missing or empty' },
  publicKeyNotFound: { status: 403, code: 'public_api_key_not_found', message: 'no workspace found for specified public API key' },
  requestFiltered: { status: 403, code: 'request_filtered', message: 'request filtered' },
} as const satisfies Record<string, ErrorKind>;

export const publicKeyRequired = (): Forbidden => new Forbidden(KINDS.publicKeyRequired);
export const publicKeyNotFound = (message?: string): Forbidden => new Forbidden(KINDS.publicKeyNotFound, message);
/** Denied by a filtering rule; the message is the rule's `deny_with`. */
export const requestFiltered = (denyWith: string): Forbidden => new Forbidden(KINDS.requestFiltered, denyWith);
