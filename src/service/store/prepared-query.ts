/**
 * Hot statements compiled once. Building and compiling a query with Kysely costs tens of
 * microseconds per call, more than SQLite needs to run most of the statements of an
 * identification. A prepared query is built and compiled once per store (the compiled SQL only
 * depends on the dialect) with a marker in place of each parameter; every call then only binds
 * the values and executes.
 *
 * Only for statements whose SQL text does not depend on the values: a list goes in as one JSON
 * array (visitors.ts `keyList`), and a text that depends on a bounded shape (how many keys, which
 * partitions) is a variant of its own; no multi-row inserts, no optional clauses.
 */
import type { CompiledQuery, Kysely } from 'kysely';
import { internalsOf, type CompiledPrepared, type PreparedValues, type Store } from './handle.js';
import { nameStatement } from './pg-named-statements.js';
import type { Database } from './schema.js';

/**
 * Runs the statement on `store` (or a transaction of it) with the named values; resolves to the
 * rows. `variant` picks one of the statement's texts (see prepareQuery); it defaults to ''.
 */
export type PreparedQuery<R> = (store: Store, values: PreparedValues, variant?: Variant) => Promise<R[]>;

/**
 * One of a statement's texts, built by passing `key` to its build function (the partitions of
 * `events` it reads, say). `named: false` keeps PostgreSQL from keeping its plan: for a text
 * whose plan for any values (a generic plan) would cover and lock every partition.
 */
export interface Variant {
  key: string;
  named: boolean;
}

/** The one text of a statement without variants. */
export const DEFAULT_VARIANT: Variant = { key: '', named: true };

/** Marks where a named value goes; only ever seen by the one-time build. */
class Param {
  constructor(readonly name: string) {}
}

/** Names a value of a prepared statement where it goes (typed `any` so it fits any column). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parameter marker stands for a value of any column type
export type ParamMarker = (name: string) => any;

/**
 * `build(db, param, key)` returns the query (a query builder or a `sql` template), with
 * `param('name')` wherever a value goes (typed `any` so it fits any column). Values are bound
 * by name on each call. A statement with several texts builds each from its variant's `key`,
 * once per store; their number must stay bounded (each named text is kept by every
 * connection that ran it).
 */
export function prepareQuery<R>(
  build: (db: Kysely<Database>, param: ParamMarker, key: string) => { compile(db: Kysely<Database>): CompiledQuery<R> },
): PreparedQuery<R> {
  return async (store, values, variant = DEFAULT_VARIANT) => {
    const { db, state } = internalsOf(store);
    // The build function names the statement; the store keeps its compiled forms.
    let variants = state.compiled.get(build);
    if (!variants) state.compiled.set(build, (variants = new Map<string, CompiledPrepared>()));
    let prepared = variants.get(variant.key);
    if (!prepared) {
      const query = build(db, (name) => new Param(name), variant.key).compile(db);
      // Constants the builder put into parameters stay as they are; markers take the value.
      const slots = query.parameters.map((p) => (p instanceof Param ? p.name : { constant: p }));
      const bind = (v: PreparedValues): unknown[] => {
        const value = typeof v === 'function' ? (v as (name: string) => unknown) : (name: string) => (v as Record<string, unknown>)[name];
        return slots.map((slot) => (typeof slot === 'string' ? value(slot) : slot.constant));
      };
      prepared = { query, bind };
      variants.set(variant.key, prepared);
      // Its text is fixed: PostgreSQL may keep it parsed and planned (pg-named-statements.ts).
      if (store.engine === 'postgres' && variant.named) nameStatement(query.sql);
    }
    const result = await db.executeQuery<R>({ ...(prepared.query as CompiledQuery<R>), parameters: prepared.bind(values) });
    return result.rows;
  };
}
