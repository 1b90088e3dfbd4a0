/**
 * BENCH_CPU_PROFILE=<dir>: a benchmark phase run through `profiled(name, ...)` is recorded by
 * the V8 CPU profiler of the benchmark's own process (where the service runs) and written to
 * <dir>/<name>.cpuprofile (open it in Chrome DevTools or speedscope). Unset, it only runs it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

const CPU_PROFILE_DIR = process.env.BENCH_CPU_PROFILE;

export async function profiled<T>(name: string, measure: () => Promise<T>): Promise<T> {
  if (!CPU_PROFILE_DIR) return measure();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await measure();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(CPU_PROFILE_DIR, { recursive: true });
    writeFileSync(join(CPU_PROFILE_DIR, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}
