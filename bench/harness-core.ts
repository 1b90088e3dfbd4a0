/**
 * Where the benchmark's own helper processes run: the load generator and the webhook receiver
 * stand in for machines of their own, but here they share the service's cores. They are pinned
 * to the last core (Linux, two cores or more, taskset installed; BENCH_PIN_HARNESS=0 turns it
 * off), so that where the scheduler puts them stops varying from load to load; the service
 * itself may run on every core.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

function tasksetAvailable(): boolean {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The core the helpers are pinned to, or undefined when they are not. */
export const harnessCore: number | undefined =
  process.env.BENCH_PIN_HARNESS !== '0' && process.platform === 'linux' && availableParallelism() >= 2 && tasksetAvailable() ? availableParallelism() - 1 : undefined;

/** The command and arguments that run `node <args>` as a helper process (pinned when harnessCore is set). */
export function helperCommand(args: string[]): [string, string[]] {
  if (harnessCore === undefined) return [process.execPath, args];
  return ['taskset', ['--cpu-list', String(harnessCore), process.execPath, ...args]];
}
