/**
 * Untrusted input at the edge, for every route: JSON bodies are parsed with a depth bound
 * (json-depth.ts) and refused when a string or key holds a NUL character or a key is
 * `__proto__`; URL path and query parameters are refused when they hold a NUL character.
 * PostgreSQL cannot store NUL in text, and deep nesting overflows the stack later on: both
 * become a 400 naming the field, the same on every engine, before a route runs.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, COMMON_ERRORS, ValidationError } from './errors.js';
import { jsonDeeperThan, MAX_JSON_DEPTH } from './json-depth.js';

function refuse(property: string, message: string): ValidationError {
  return new ValidationError(`invalid request: ${property} ${message}`, [{ property, message }]);
}

/** The path of the first NUL-bearing string or key, or `__proto__` key, under `value`; depth is already bounded. */
function findUnsafe(value: unknown, path: string): { property: string; message: string } | undefined {
  if (typeof value === 'string') return value.includes('\0') ? { property: path, message: 'must not contain NUL characters' } : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, child] of Object.entries(value)) {
    const property = Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`;
    if (key.includes('\0')) return { property: path, message: 'must not have keys with NUL characters' };
    if (key === '__proto__') return { property, message: 'is not allowed' };
    const found = findUnsafe(child, property);
    if (found) return found;
  }
  return undefined;
}

/** Parses a request body as JSON, or throws the 400 the route's API family renders. */
export function parseJsonBody(text: string): unknown {
  if (jsonDeeperThan(text, MAX_JSON_DEPTH)) throw refuse('body', `must not nest deeper than ${MAX_JSON_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError(COMMON_ERRORS.badRequest, 'request body is not valid JSON');
  }
  // NUL can only be written `\u0000` and `__proto__` only as itself or with `\u` escapes: a
  // text with neither has nothing to find, and the walk (a path string per key) is skipped.
  if (!text.includes('\\u') && !text.includes('__proto__')) return value;
  const unsafe = findUnsafe(value, 'body');
  if (unsafe) throw refuse(unsafe.property, unsafe.message);
  return value;
}

function checkUrlParameters(request: FastifyRequest): void {
  for (const [where, values] of [['path', request.params], ['query', request.query]] as const) {
    const unsafe = findUnsafe(values, where);
    if (unsafe) throw refuse(unsafe.property, unsafe.message);
  }
}

function inputGuard(app: FastifyInstance, _options: unknown, done: () => void): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, parsed) => {
    try {
      parsed(null, parseJsonBody(body as string));
    } catch (err) {
      parsed(err as Error, undefined);
    }
  });
  app.addHook('preValidation', (request, _reply, next) => {
    try {
      checkUrlParameters(request);
      next();
    } catch (err) {
      next(err as Error);
    }
  });
  done();
}

// For the whole application, like the error plugin: not encapsulated.
(inputGuard as unknown as Record<symbol, boolean>)[Symbol.for('skip-override')] = true;

export { inputGuard };
