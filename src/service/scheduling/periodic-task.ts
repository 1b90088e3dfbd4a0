/**
 * A pass of background work repeated on a timer: never two passes at once (a manual
 * `runOnce()` joins the running one), a failed pass is retried later, and `stop()` waits for the
 * pass in flight. The timer does not keep the process alive.
 */
export interface PeriodicTask<T> {
  /** Runs a pass now, or joins the one in flight. */
  runOnce(): Promise<T>;
  /** Stops the timer and waits for the pass in flight. */
  stop(): Promise<void>;
}

export function startPeriodicTask<T>(opts: {
  pass: () => Promise<T>;
  /** Delay before the next pass: after a pass's result, or after its failure (`undefined`). */
  nextDelay: (result: T | undefined) => number;
  firstDelay: number;
  onError: (err: unknown) => void;
  /** False: no timer at all (tests call `runOnce()` themselves). */
  timer?: boolean;
}): PeriodicTask<T> {
  let running: Promise<T> | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const runOnce = (): Promise<T> => {
    running ??= opts.pass().finally(() => {
      running = undefined;
    });
    return running;
  };

  const schedule = (delay: number) => {
    if (stopped || opts.timer === false) return;
    timer = setTimeout(() => {
      runOnce().then(
        (result) => schedule(opts.nextDelay(result)),
        (err: unknown) => {
          opts.onError(err);
          schedule(opts.nextDelay(undefined));
        },
      );
    }, delay);
    timer.unref();
  };
  schedule(opts.firstDelay);

  return {
    runOnce,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
}
