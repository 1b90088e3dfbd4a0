/**
 * PostgreSQL: the store's fixed statements run as named prepared statements. Kysely hands pg the
 * SQL text on every call, and pg sends it unnamed, so PostgreSQL parsed and planned each
 * identification's statements (CTEs of one to two kilobytes) on every call. Named, a connection
 * parses a text once and then only binds and executes it: in the service benchmark this took a
 * third off PostgreSQL's CPU per identification and about a fifth off the service's.
 *
 * Only texts registered here are named: those of prepared-query.ts, whose text never depends on
 * the values, so their number is fixed by the code (each connection keeps one prepared statement
 * per name it ran, until it closes). Statements whose text varies (IN lists, multi-row inserts,
 * optional clauses) would grow that without bound; they run unnamed, as before.
 *
 * A named statement may get a plan for any values (PostgreSQL weighs one from its sixth run on).
 * On the partitioned `events` such a plan covers every partition and locks every one each time
 * it runs: with hundreds of weekly partitions (a long retention) the locks of a few concurrent
 * statements filled PostgreSQL's lock table ("out of shared memory"). So no named statement
 * reads the parent: the identification's reads name the partitions of their window
 * (recent-partitions.ts), and a variant that has to read the parent runs unnamed
 * (prepared-query.ts `Variant`).
 */
import type { PostgresPool } from 'kysely';
import type Pg from 'pg';

/** Statement name by SQL text, for the whole process (the texts are the same for every store). */
const names = new Map<string, string>();

/** Marks a statement text as fixed: from now on it runs as a named prepared statement. */
export function nameStatement(text: string): void {
  if (!names.has(text)) names.set(text, `tessera_${names.size}`);
}

type Query = (...args: unknown[]) => unknown;
const NAMED = Symbol('named statements');

/** `pool` for Kysely, whose connections run each registered text under its name. */
export function withNamedStatements(pool: Pg.Pool): PostgresPool {
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
          const name = typeof text === 'string' && Array.isArray(values) ? names.get(text) : undefined;
          return name === undefined ? query(...args) : query({ name, text, values });
        };
      }
      return client;
    },
    end: () => pool.end(),
  };
}
