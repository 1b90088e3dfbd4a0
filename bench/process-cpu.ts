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

/** CPU time (ms) used so far by each PostgreSQL backend, by process id. */
export type BackendCpu = Map<number, number>;

/**
 * CPU time (ms) each PostgreSQL backend connected to `db`'s database has used so far (the
 * server must run on this machine); undefined when it cannot be read.
 */
export async function postgresBackendCpu(db: Kysely<unknown>): Promise<BackendCpu | undefined> {
  const { rows } = await sql<{ pid: number }>`select pid from pg_stat_activity where datname = current_database()`.execute(db);
  const cpu: BackendCpu = new Map();
  for (const { pid } of rows) {
    const ms = processCpuMs(pid);
    if (ms === undefined) return undefined;
    cpu.set(pid, ms);
  }
  return cpu;
}

/**
 * CPU time (ms) the backends used between two readings: each backend's growth, a backend that
 * started meanwhile in full. A backend that exited meanwhile (a pool closing an idle
 * connection) takes its time with it, so this can only undercount, never go negative.
 */
export function backendCpuUsed(before: BackendCpu, after: BackendCpu): number {
  let used = 0;
  for (const [pid, ms] of after) used += ms - (before.get(pid) ?? 0);
  return used;
}
