import type { SignalName, Signals } from '../protocol/index.js';
import { TIMED_OUT, within } from './safe.js';
import { SOURCES } from './signals/index.js';

/** Time bound of one source. */
export const SOURCE_TIMEOUT_MS = 1000;

/**
 * Synchronous source work after which the collector lets queued tasks run. In Chromium the
 * sources hold the main thread for 60-80 ms in all (fonts, canvas and WebGL most), so this
 * means a handful of yields per collection.
 */
export const SLICE_MS = 10;

export interface Collected {
  signals: Signals;
  errors: Partial<Record<SignalName, string>>;
}

/**
 * Resolves in a new task, so that tasks already queued (IndexedDB callbacks, the end of audio
 * rendering, digests) run first: a message, because timers are throttled in background tabs.
 */
export const nextTask = () =>
  new Promise<void>((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(0);
  });

/**
 * Starts every source in `SOURCES` order (a source that keeps something in the page's
 * storage names it with `storagePrefix`, the agent's storageKeyPrefix), each bounded in time
 * and isolated: a source that
 * throws, times out or has nothing (unsupported) is left out of `signals` and named in
 * `errors`. The synchronous sources share the main thread and run one after the other; after
 * each `SLICE_MS` of them the collector yields a task, so that what the asynchronous sources
 * and the visitor-token read started (audio rendering, IndexedDB, digests) completes meanwhile
 * rather than after the last synchronous source, and the page's own tasks are not held up by
 * one long task.
 */
export async function collectSignals(storagePrefix?: string): Promise<Collected> {
  const signals: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  const pending: Promise<void>[] = [];
  let slice = performance.now();
  for (const [name, source] of Object.entries(SOURCES)) {
    if (performance.now() - slice > SLICE_MS) {
      await nextTask();
      slice = performance.now();
    }
    // Called at once (not in a microtask), so that the time slice counts its synchronous work.
    pending.push(
      within(new Promise((resolve) => resolve((source as (prefix?: string) => unknown)(storagePrefix))), SOURCE_TIMEOUT_MS).then(
        (value) => {
          if (value === undefined || value === null) errors[name] = 'unsupported';
          else signals[name] = value;
        },
        (e) => {
          errors[name] = e === TIMED_OUT ? 'timeout' : 'error';
        },
      ),
    );
  }
  await Promise.all(pending);
  return { signals, errors };
}
