/**
 * Profiles of a benchmark phase run through `profiled(name, ...)`, in the benchmark's own
 * process (where the service runs); unset, it only runs the phase.
 * - BENCH_CPU_PROFILE=<dir>: V8's CPU profiler, written to <dir>/<name>.cpuprofile (open it in
 *   Chrome DevTools or speedscope).
 * - BENCH_HEAP_PROFILE=<dir>: V8's sampling heap profiler over every allocation of the phase,
 *   collected ones included (where the garbage comes from, not what stays), written to
 *   <dir>/<name>.heapprofile (Chrome DevTools, Memory tab). One sample per 16 KiB allocated.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

const CPU_PROFILE_DIR = process.env.BENCH_CPU_PROFILE;
const HEAP_PROFILE_DIR = process.env.BENCH_HEAP_PROFILE;
const HEAP_SAMPLING_BYTES = 16 * 1024;

export async function profiled<T>(name: string, measure: () => Promise<T>): Promise<T> {
  if (!CPU_PROFILE_DIR && !HEAP_PROFILE_DIR) return measure();
  const session = new Session();
  session.connect();
  if (CPU_PROFILE_DIR) {
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  if (HEAP_PROFILE_DIR) {
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: HEAP_SAMPLING_BYTES,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  }
  try {
    return await measure();
  } finally {
    if (CPU_PROFILE_DIR) {
      const { profile } = await session.post('Profiler.stop');
      mkdirSync(CPU_PROFILE_DIR, { recursive: true });
      writeFileSync(join(CPU_PROFILE_DIR, `${name}.cpuprofile`), JSON.stringify(profile));
    }
    if (HEAP_PROFILE_DIR) {
      const { profile } = await session.post('HeapProfiler.stopSampling');
      mkdirSync(HEAP_PROFILE_DIR, { recursive: true });
      writeFileSync(join(HEAP_PROFILE_DIR, `${name}.heapprofile`), JSON.stringify(profile));
    }
    session.disconnect();
  }
}
