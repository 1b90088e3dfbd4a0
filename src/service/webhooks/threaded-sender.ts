/**
 * A Sender (sender.ts) that sends from a worker thread (sender-thread.ts): the service's main
 * thread only hands over each request and receives its result. The requests made within
 * HANDOVER_DELAY_MS (a worker pass's whole batch, the hand-offs of many identifications) go
 * over in one message, and the thread answers in batches too: a message costs about as much
 * as a small delivery's clone, and wakes the thread. The thread starts with the first send and is replaced if it dies; a
 * send in flight when it dies fails (the delivery is retried like any failed attempt).
 */
import { Worker } from 'node:worker_threads';
import type { SendResult, Sender, SenderOptions } from './sender.js';
import type { SendRequest, SendResponse } from './sender-thread.js';

/**
 * Requests are handed over at most this often. Deliveries handed off one identification at a
 * time would otherwise wake the thread, and it the receiver, for each one or two; gathered,
 * they go over in one message and out in one burst.
 */
const HANDOVER_DELAY_MS = 20;

export interface ThreadedSender extends Sender {
  /** Ends the thread (sends in flight fail). */
  close(): Promise<void>;
}

/**
 * Compiled (dist/), the thread runs sender-thread.js. From the TypeScript sources (the tests,
 * tsx) it runs the .ts file through tsx's loader, which a worker does not inherit.
 */
function startThread(options: SenderOptions): Worker {
  const url = new URL(`./sender-thread${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);
  if (!url.pathname.endsWith('.ts')) return new Worker(url, { workerData: options });
  const code = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(code, { eval: true, workerData: options });
}

export function createThreadedSender(options: SenderOptions): ThreadedSender {
  let thread: Worker | undefined;
  let nextId = 0;
  const pending = new Map<number, (result: SendResult) => void>();

  const failAll = (error: string) => {
    for (const resolve of pending.values()) resolve({ ok: false, httpStatus: null, latencyMs: 0, error });
    pending.clear();
  };

  const threadFor = (): Worker => {
    if (thread) return thread;
    const started = startThread(options);
    started.on('message', (results: SendResponse[]) => {
      for (const { id, result } of results) {
        pending.get(id)?.(result);
        pending.delete(id);
      }
    });
    const lost = (why: string) => {
      if (thread !== started) return;
      thread = undefined;
      failAll(`webhook delivery thread ${why}; the attempt is retried`);
    };
    started.on('error', (err) => lost(`failed: ${err.message}`));
    started.on('exit', (code) => lost(`exited with code ${code}`));
    // Idle between deliveries, it must not keep the process alive.
    started.unref();
    thread = started;
    return started;
  };

  let queued: SendRequest[] = [];
  const flush = () => {
    const requests = queued;
    queued = [];
    threadFor().postMessage(requests);
  };
  const send: Sender = (url, body, headers, signingKey) =>
    new Promise<SendResult>((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      if (queued.length === 0) setTimeout(flush, HANDOVER_DELAY_MS);
      queued.push({ id, url, body, headers, signingKey });
    });

  return Object.assign(send, {
    async close() {
      const closing = thread;
      thread = undefined;
      failAll('webhook delivery thread closed');
      await closing?.terminate();
    },
  });
}
