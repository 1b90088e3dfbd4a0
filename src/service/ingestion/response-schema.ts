/**
 * JSON schema of an `IdentifyResponse` (src/protocol), for Fastify's response serialiser
 * (fast-json-stringify): the answer to every identification is written by code compiled for
 * its shape instead of a generic JSON.stringify. Only what the protocol declares is written;
 * a required field missing fails the request instead of sending an answer the agent cannot use.
 */
import { PROTOCOL_VERSION } from '../../protocol/index.js';

const str = { type: 'string' } as const;

export const identifyResponseSchema = {
  type: 'object',
  properties: {
    v: { type: 'integer', enum: [PROTOCOL_VERSION] },
    event_id: str,
    visitor_id: str,
    confidence: {
      type: 'object',
      properties: { score: { type: 'number' }, version: str, comment: str },
      required: ['score', 'version'],
    },
    visitor_found: { type: 'boolean' },
    suspect_score: { type: 'number' },
    sealed_result: { type: ['string', 'null'] },
    token: str,
  },
  required: ['v', 'event_id', 'visitor_id', 'confidence', 'visitor_found', 'sealed_result', 'token'],
} as const;
