import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { expect, it } from 'vitest';
import { MEMORY_SAMPLE_MS, peakOwnMemory, residentMemory } from '../../bench/process-memory.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A child process that fills `mib` MiB of its own, then `then` after `holdMs` (JavaScript run in it). */
const holding = (mib: number, holdMs: number, then: string, args: string[] = []) =>
  spawn(process.execPath, [...args, '-e', `
    let held = Buffer.alloc(${mib} * 1024 * 1024, 1);
    setTimeout(() => { ${then} }, ${holdMs});
    setInterval(() => {}, 1000);
  `], { stdio: ['ignore', 'pipe', 'inherit'] });

it('keeps the peak of a process whose own memory grew and shrank, and of one that has gone', async () => {
  // One lets its 64 MiB go and stays; the other exits with its 32 MiB.
  const shrinking = holding(64, 10 * MEMORY_SAMPLE_MS, "held = undefined; gc(); process.stdout.write('freed\\n');", ['--expose-gc']);
  const exiting = holding(32, 5 * MEMORY_SAMPLE_MS, 'process.exit(0);');
  const freed = once(shrinking.stdout, 'data');
  const exited = once(exiting, 'exit');
  await Promise.all([once(shrinking, 'spawn'), once(exiting, 'spawn')]);
  const stop = peakOwnMemory([shrinking.pid!, exiting.pid!]);
  try {
    await Promise.all([freed, exited]);
    // Samples after the exit: the sampler must not throw for a process that has gone.
    await sleep(3 * MEMORY_SAMPLE_MS);
    const [peak, peakOfExited] = stop();
    // The buffers were resident (filled) while held: each peak counts its buffer.
    expect(peak).toBeGreaterThan(64);
    expect(peakOfExited).toBeGreaterThan(32);
    // The first had let its buffer go: a reading now would have missed it.
    expect(residentMemory(shrinking.pid!).own).toBeLessThan(peak! - 32);
  } finally {
    shrinking.kill();
    exiting.kill();
  }
});
