/**
 * JSON schema of an `IdentifyRequest` (src/protocol), checked by Fastify's ajv before the
 * handler runs, so that every value the identification and event code reads has the type
 * the protocol promises. Unknown keys are allowed (a newer agent may send more signals).
 * `api_key` is optional here: its absence gets its own error code in the handler.
 */
import { MAX_LINKED_ID_LENGTH, MAX_URL_LENGTH, PROTOCOL_VERSION } from '../../protocol/index.js';
import { SIGNALS, type Shape } from '../../protocol/signals.js';

const str = (maxLength: number) => ({ type: 'string', maxLength }) as const;
const bool = { type: 'boolean' } as const;
const num = { type: 'number' } as const;
const strings = (maxItems: number, maxLength: number) => ({ type: 'array', maxItems, items: str(maxLength) }) as const;
const object = (properties: Record<string, unknown>, required: string[] = Object.keys(properties)) =>
  ({ type: 'object', properties, required }) as const;

/** The JSON schema of one declared signal shape, with the table's bounds. */
function shapeSchema(shape: Shape): unknown {
  switch (shape.kind) {
    case 'string':
      return str(shape.maxLength);
    case 'number':
      return num;
    case 'boolean':
      return bool;
    case 'enum':
      return { type: 'string', enum: shape.values };
    case 'strings':
      return strings(shape.maxItems, shape.maxLength);
    case 'object': {
      const properties = Object.fromEntries(Object.entries(shape.fields).map(([name, field]) => [name, shapeSchema(field)]));
      return object(properties, Object.keys(properties).filter((name) => !shape.optional.includes(name)));
    }
  }
}

/** Generated from the signal table (src/protocol/signals.ts): every signal optional. */
export const signalsSchema = object(
  Object.fromEntries(Object.entries(SIGNALS).map(([name, spec]) => [name, shapeSchema(spec.shape)])),
  [],
);

export const identifyRequestSchema = object(
  {
    v: { type: 'integer', enum: [PROTOCOL_VERSION] },
    api_key: str(256),
    url: str(MAX_URL_LENGTH),
    referrer: str(MAX_URL_LENGTH),
    linked_id: str(MAX_LINKED_ID_LENGTH),
    tags: {},
    token: str(4096),
    sdk: object(
      {
        platform: str(32),
        version: str(64),
        integrations: { type: 'array', maxItems: 16, items: object({ name: str(128), version: str(64) }) },
      },
      ['platform', 'version'],
    ),
    signals: signalsSchema,
    signal_errors: { type: 'object', additionalProperties: str(256) },
  },
  ['v', 'url', 'sdk', 'signals'],
);
