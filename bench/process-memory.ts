/**
 * Memory of other processes on this machine, read from /proc (Linux), for the load benchmarks:
 * the service's processes (`tessera start`, its workers, the PostgreSQL scaling services).
 */
import { readFileSync } from 'node:fs';

/**
 * Resident memory of a process, MiB, from /proc (Linux): all of it, and the part that is file
 * pages (mostly SQLite's memory-mapped database: page cache the kernel can reclaim, shared by
 * processes mapping the same file) apart from the process's own memory (heap, stacks).
 */
export interface Resident {
  total: number;
  own: number;
  file: number;
}

export function residentMemory(pid: number): Resident {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
  return { total: mb('VmRSS'), own: mb('RssAnon'), file: mb('RssFile') + mb('RssShmem') };
}

export const resident = (r: Resident) => `${r.total.toFixed(0)} MiB (${r.own.toFixed(0)} MiB its own, ${r.file.toFixed(0)} MiB file pages)`;

/** How often peakOwnMemory samples: V8 lets a busy heap grow for seconds between compactions. */
export const MEMORY_SAMPLE_MS = 100;

/**
 * The largest own memory (RssAnon) each process held while sampling, MiB. One reading after a
 * load says little: it falls anywhere between two of V8's compactions, which free tens of MiB
 * of garbage at once (the same command read 130-250 MiB after equal loads), and the kernel
 * keeps no high-water mark of the own part alone (VmHWM counts the file pages too).
 */
export function peakOwnMemory(pids: number[]): () => number[] {
  const peaks = pids.map(() => 0);
  const sample = () =>
    pids.forEach((pid, i) => {
      try {
        peaks[i] = Math.max(peaks[i]!, residentMemory(pid).own || 0);
      } catch {
        // A process that has gone (a crashed worker) keeps the peak it had.
      }
    });
  const timer = setInterval(sample, MEMORY_SAMPLE_MS);
  return () => {
    clearInterval(timer);
    sample();
    return peaks;
  };
}

export const mib = (n: number) => `${n.toFixed(0)} MiB`;
