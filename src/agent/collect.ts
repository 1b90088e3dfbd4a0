import type { SignalName, Signals } from '../protocol/index.js';
import { TIMED_OUT, within } from './safe.js';
import { SOURCES } from './signals/index.js';

/** Time bound of one source. */
export const SOURCE_TIMEOUT_MS = 1000;

export interface Collected {
  signals: Signals;
  errors: Partial<Record<SignalName, string>>;
}

/**
 * Runs every source at once, each bounded in time and isolated: a source that throws, times
 * out or has nothing (unsupported) is left out of `signals` and named in `errors`.
 */
export async function collectSignals(): Promise<Collected> {
  const signals: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  await Promise.all(
    Object.entries(SOURCES).map(async ([name, source]) => {
      try {
        const value = await within(Promise.resolve().then(source as () => unknown), SOURCE_TIMEOUT_MS);
        if (value === undefined || value === null) errors[name] = 'unsupported';
        else signals[name] = value;
      } catch (e) {
        errors[name] = e === TIMED_OUT ? 'timeout' : 'error';
      }
    }),
  );
  return { signals, errors };
}
