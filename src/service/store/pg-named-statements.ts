/**
 * PostgreSQL: statements with parameters run as named prepared statements. Kysely hands pg the
 * SQL text on every call, and pg sends it unnamed, so PostgreSQL parsed and planned each
 * identification's statements (CTEs of one to two kilobytes) on every call. Named, a connection
 * parses a text once and then only binds and executes it: in the service benchmark this took a
 * third off PostgreSQL's CPU per identification and about a fifth off the service's.
 *
 * A text is named the first time it is seen, up to MAX_NAMED distinct texts per process (each
 * connection keeps a prepared statement per name it ran, until it closes); texts beyond that, and
 * statements without parameters (DDL, migrations), run unnamed as before.
 */
import type { PostgresPool } from 'kysely';
import type Pg from 'pg';

const MAX_NAMED = 256;

type Query = (...args: unknown[]) => unknown;
const NAMED = Symbol('named statements');

/** `pool` for Kysely, whose connections run each statement with parameters under its text's name. */
export function withNamedStatements(pool: Pg.Pool): PostgresPool {
  const names = new Map<string, string>();
  const nameOf = (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined && names.size < MAX_NAMED) {
      name = `tessera_${names.size}`;
      names.set(text, name);
    }
    return name;
  };
  return {
    async connect() {
      const client = await pool.connect();
      const marked = client as unknown as { [NAMED]?: true; query: Query };
      if (!marked[NAMED]) {
        marked[NAMED] = true;
        // The method is looked up at each call, not bound once: whoever wraps pg's own (a test
        // or bench counting statements) still sees every statement.
        const proto = Object.getPrototypeOf(client) as { query: Query };
        const query = (...args: unknown[]) => proto.query.apply(client, args);
        marked.query = (...args: unknown[]) => {
          const [text, values] = args;
          const name = typeof text === 'string' && Array.isArray(values) && values.length > 0 ? nameOf(text) : undefined;
          return name === undefined ? query(...args) : query({ name, text, values });
        };
      }
      return client;
    },
    end: () => pool.end(),
  };
}
