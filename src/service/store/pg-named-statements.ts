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
 * Every connection plans each execution for its values (`plan_cache_mode = force_custom_plan`),
 * named statements too. From a statement's sixth execution on, PostgreSQL's default also weighs
 * a generic plan, which covers every partition of `events`: building it locks every partition
 * and its indexes, and running it locks every partition. With weekly partitions and a long
 * retention (hundreds of weeks) that made identifications fail with "out of shared memory"
 * (the lock table is sized by max_locks_per_transaction) and doubled PostgreSQL's CPU per
 * identification. A plan for the values prunes at planning: an identification locks the one or
 * two partitions of its last 24 hours, however many the retention keeps.
 */
import type { PostgresPool } from 'kysely';
import type Pg from 'pg';

/** Statement name by SQL text, for the whole process (the texts are the same for every store). */
const names = new Map<string, string>();

/** Marks a statement text as fixed: from now on it runs as a named prepared statement. */
export function nameStatement(text: string): void {
  if (!names.has(text)) names.set(text, `tessera_${names.size}`);
}

/** Run once on each new connection (see above). */
const PLAN_FOR_THE_VALUES = 'set plan_cache_mode = force_custom_plan';

type Query = (...args: unknown[]) => unknown;
const NAMED = Symbol('named statements');

/** `pool` for Kysely, whose connections run each registered text under its name. */
export function withNamedStatements(pool: Pg.Pool): PostgresPool {
  return {
    async connect() {
      const client = await pool.connect();
      const marked = client as unknown as { [NAMED]?: true; query: Query };
      if (!marked[NAMED]) {
        try {
          await client.query(PLAN_FOR_THE_VALUES);
        } catch (err) {
          // A connection that cannot take the setting is not handed out (nor kept in the pool).
          client.release(err as Error);
          throw err;
        }
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
