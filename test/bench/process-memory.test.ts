import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { expect, it } from 'vitest';
import { MEMORY_SAMPLE_MS, peakOwnMemory, residentMemory } from '../../bench/process-memory.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('keeps the peak of a process whose own memory grew and shrank, and of one that has gone', async () => {
  // A child that holds 64 MiB of its own for a moment, lets it go, then waits to be ended.
  const child = spawn(process.execPath, ['--expose-gc', '-e', `
    let held = Buffer.alloc(64 * 1024 * 1024, 1);
    setTimeout(() => { held = undefined; gc(); process.stdout.write('freed\\n'); }, ${10 * MEMORY_SAMPLE_MS});
    setInterval(() => {}, 1000);
  `], { stdio: ['ignore', 'pipe', 'inherit'] });
  const freed = once(child.stdout, 'data');
  const gone = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 50)']);
  const goneExited = once(gone, 'exit');
  await once(child, 'spawn');
  const stop = peakOwnMemory([child.pid!, gone.pid!]);
  try {
    await freed;
    await sleep(2 * MEMORY_SAMPLE_MS);
    await goneExited;
    const [peak, ofGone] = stop();
    // The 64 MiB buffer was resident (filled) while it was held: the peak counts it.
    expect(peak).toBeGreaterThan(64);
    // The process that exited left what it had been sampled at, and no error.
    expect(ofGone).toBeGreaterThanOrEqual(0);
    // It had let the buffer go: a reading now would have missed it.
    expect(residentMemory(child.pid!).own).toBeLessThan(peak! - 32);
  } finally {
    child.kill();
  }
});
