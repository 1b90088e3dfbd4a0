/**
 * CPU time of other processes on this machine, read from /proc (Linux), for the load
 * benchmarks: the service's child processes and the PostgreSQL backends serving the
 * benchmark's database. Only those: other work on a shared machine or server is not counted.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { sql, type Kysely } from 'kysely';

/** /proc times are in clock ticks of 1/100 s on Linux (getconf CLK_TCK). */
const CLOCK_TICK_MS = 10;

/** User + system CPU time (ms) in a /proc stat file's text. */
function statCpuMs(stat: string): number {
  // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS;
}

/** User + system CPU time (ms) process `pid` has used so far; undefined when it cannot be read. */
export function processCpuMs(pid: number): number | undefined {
  try {
    return statCpuMs(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** This process's CPU time so far (ms): its main thread (JavaScript's event loop), and all its other threads. */
export interface ThreadCpu {
  main: number;
  others: number;
}

/**
 * This process's CPU time by thread (ms), from /proc/self/task; undefined when it cannot be
 * read. A thread that ended meanwhile takes its time with it (Node 20 names no thread, so
 * worker threads, the thread pool and V8's helpers all count as `others`).
 */
export function ownThreadCpu(): ThreadCpu | undefined {
  try {
    const cpu: ThreadCpu = { main: 0, others: 0 };
    for (const tid of readdirSync('/proc/self/task')) {
      const ms = statCpuMs(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8'));
      if (Number(tid) === process.pid) cpu.main += ms;
      else cpu.others += ms;
    }
    return cpu;
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
