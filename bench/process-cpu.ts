/**
 * CPU time of other processes on this machine, read from /proc (Linux), for the load
 * benchmarks: the service's child processes and the PostgreSQL backends serving the
 * benchmark's database. Only those: other work on a shared machine or server is not counted.
 */
import { readFileSync } from 'node:fs';
import { sql, type Kysely } from 'kysely';

/** /proc times are in clock ticks of 1/100 s on Linux (getconf CLK_TCK). */
const CLOCK_TICK_MS = 10;

/** User + system CPU time (ms) process `pid` has used so far; undefined when it cannot be read. */
export function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS;
  } catch {
    return undefined;
  }
}

/**
 * CPU time (ms) the PostgreSQL backends connected to `db`'s database have used so far
 * (the server must run on this machine); undefined when it cannot be read. A backend that
 * exits between two readings takes its time with it: the service's pool keeps its connections.
 */
export async function postgresBackendCpuMs(db: Kysely<unknown>): Promise<number | undefined> {
  const { rows } = await sql<{ pid: number }>`select pid from pg_stat_activity where datname = current_database()`.execute(db);
  let total = 0;
  for (const { pid } of rows) {
    const ms = processCpuMs(pid);
    if (ms === undefined) return undefined;
    total += ms;
  }
  return total;
}
