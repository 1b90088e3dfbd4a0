/**
 * Reading a request body or query field by field: each wrong field adds a violation (so one
 * answer names every problem), and fields nobody asked for are refused, not silently ignored.
 */
import type { Violation } from '../http/errors.js';
import { invalidRequest, validationFailed } from './errors.js';

export const NAME_LENGTH = { min: 3, max: 255 };

export class Fields {
  readonly violations: Violation[] = [];
  private readonly known = new Set<string>();

  /** `source`: the body (422 on a bad field) or the query string (400). */
  constructor(
    private readonly values: Record<string, unknown>,
    private readonly source: 'body' | 'query',
  ) {}

  has(name: string): boolean {
    this.known.add(name);
    return this.values[name] !== undefined;
  }

  raw(name: string): unknown {
    this.known.add(name);
    return this.values[name];
  }

  fail(property: string, message: string): undefined {
    this.violations.push({ property, message });
    return undefined;
  }

  /** A string of `min` to `max` characters; `null` passes through when `nullable`. */
  string(name: string, opts: { required?: boolean; min?: number; max?: number; nullable?: boolean } = {}): string | null | undefined {
    const value = this.raw(name);
    if (value === undefined) return opts.required ? this.fail(name, 'is required') : undefined;
    if (value === null && opts.nullable) return null;
    if (typeof value !== 'string') return this.fail(name, 'must be a string');
    const { min = 0, max = Infinity } = opts;
    if (value.length < min || value.length > max) return this.fail(name, `must have ${min} to ${max} characters`);
    return value;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], opts: { required?: boolean } = {}): T | undefined {
    const value = this.raw(name);
    if (value === undefined) return opts.required ? this.fail(name, 'is required') : undefined;
    if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
      return this.fail(name, `must be one of ${allowed.join(', ')}`);
    }
    return value as T;
  }

  /** An integer in [min, max]; a query string's digits count as one. */
  integer(name: string, min: number, max: number): number | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    const n = this.source === 'query' && typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) return this.fail(name, `must be an integer from ${min} to ${max}`);
    return n;
  }

  boolean(name: string): boolean | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') return this.fail(name, 'must be true or false');
    return value;
  }

  /** Throws every violation (and every unknown field) at once: 422 for a body, 400 for a query. */
  check(): void {
    for (const name of Object.keys(this.values)) {
      if (!this.known.has(name) && this.values[name] !== undefined) this.violations.push({ property: name, message: 'is not a known field' });
    }
    if (this.violations.length === 0) return;
    throw this.source === 'body' ? validationFailed(this.violations) : invalidRequest(this.violations);
  }
}

/** The request body as fields; a body that is not a JSON object is a 400. */
export function bodyFields(body: unknown): Fields {
  if (body === undefined || body === null) return new Fields({}, 'body');
  if (typeof body !== 'object' || Array.isArray(body)) throw invalidRequest([{ property: 'body', message: 'must be a JSON object' }]);
  return new Fields(body as Record<string, unknown>, 'body');
}

export function queryFields(query: unknown): Fields {
  return new Fields({ ...(query as Record<string, unknown>) }, 'query');
}
