/**
 * Errors of the ingestion endpoint, in the `IdentifyErrorResponse` shape. The codes are the
 * contract's (compatibility.md); the agent passes them to the page unchanged.
 */
import type { FastifyReply } from 'fastify';
import { PROTOCOL_VERSION, type IdentifyErrorResponse } from '../../protocol/index.js';

export const INGESTION_ERRORS = {
  request_cannot_be_parsed: 400,
  public_api_key_required: 403,
  public_api_key_not_found: 403,
  wrong_region: 403,
  request_filtered: 403,
  payload_too_large: 413,
  too_many_requests: 429,
  failed: 500,
} as const;

export type IngestionErrorCode = keyof typeof INGESTION_ERRORS;

export class IngestionError extends Error {
  constructor(
    readonly code: IngestionErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export function errorBody(code: IngestionErrorCode, message: string): IdentifyErrorResponse {
  return { v: PROTOCOL_VERSION, error: { code, message } };
}

export function sendIngestionError(reply: FastifyReply, code: IngestionErrorCode, message: string): FastifyReply {
  return reply.code(INGESTION_ERRORS[code]).type('application/json; charset=utf-8').send(errorBody(code, message));
}
