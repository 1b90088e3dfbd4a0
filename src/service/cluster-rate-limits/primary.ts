/**
 * The primary's side of the rate limits of `tessera start --workers N` without Redis: answers
 * the workers' asks for rate-limit points from the ledger (lease-ledger.ts) and runs the
 * recalls, over node:cluster's IPC channels.
 */
import cluster, { type Worker } from 'node:cluster';
import { LeaseLedger } from './lease-ledger.js';
import { isRateLimitMessage, rateLimitMessage, type ToPrimary, type ToWorker } from './messages.js';

/** A worker that has not answered a recall by then (its event loop is stuck) keeps what it held, as spent. */
const RECALL_TIMEOUT_MS = 500;
const SWEEP_INTERVAL_MS = 10_000;

type Ask = Extract<ToPrimary, { type: 'ask' }>;

interface Recall {
  windowEnd: number;
  /** Workers that have not given back yet. */
  waiting: Set<number>;
  /** Asks for the bucket that came in meanwhile, in order; asked again when the recall ends. */
  asks: { worker: number; ask: Ask }[];
  timer: NodeJS.Timeout;
}

/** How the primary reaches its workers: node:cluster's IPC (serveClusterRateLimits), or any channels alike. */
export interface WorkerChannels {
  /** Sends to a worker; a worker that has gone is skipped (it has no use for an answer). */
  send(worker: number, message: ToWorker): void;
  /** How many workers are alive. */
  workers(): number;
}

/**
 * The primary's side, over `channels`: call `onMessage` with each message from a worker and
 * `onExit` when a worker has died.
 */
export function serveRateLimitLeases(channels: WorkerChannels) {
  const ledger = new LeaseLedger();
  const recalls = new Map<string, Recall>();

  const handleAsk = (worker: number, ask: Ask) => {
    const open = recalls.get(ask.key);
    if (open) {
      open.asks.push({ worker, ask });
      return;
    }
    const { key, points, windowMs, want } = ask;
    const answer = ledger.ask({ worker, key, points, windowMs, want, workers: channels.workers() }, Date.now());
    if (answer.kind === 'grant') {
      channels.send(worker, rateLimitMessage({ type: 'grant', id: ask.id, granted: answer.granted, windowEnd: answer.windowEnd }));
      return;
    }
    const recall: Recall = {
      windowEnd: answer.windowEnd,
      waiting: new Set(answer.from),
      asks: [{ worker, ask }],
      timer: setTimeout(() => endRecall(key), RECALL_TIMEOUT_MS),
    };
    recalls.set(key, recall);
    for (const from of answer.from) channels.send(from, rateLimitMessage({ type: 'recall', key, windowEnd: answer.windowEnd }));
  };

  const endRecall = (key: string) => {
    const recall = recalls.get(key);
    if (!recall) return;
    clearTimeout(recall.timer);
    recalls.delete(key);
    // Those that did not answer in time keep what they held, counted as spent.
    for (const worker of recall.waiting) ledger.returned(worker, key, 0, recall.windowEnd);
    for (const { worker, ask } of recall.asks) handleAsk(worker, ask);
  };

  const answered = (key: string, worker: number) => {
    const recall = recalls.get(key);
    if (!recall) return;
    recall.waiting.delete(worker);
    if (recall.waiting.size === 0) endRecall(key);
  };

  const sweep = setInterval(() => ledger.sweep(Date.now()), SWEEP_INTERVAL_MS).unref();
  return {
    /** A message from `worker` (other messages than rate limits are ignored). */
    onMessage(worker: number, message: unknown) {
      if (!isRateLimitMessage<ToPrimary>(message)) return;
      if (message.type === 'ask') handleAsk(worker, message);
      else {
        ledger.returned(worker, message.key, message.points, message.windowEnd);
        answered(message.key, worker);
      }
    },
    /** `worker` has died: what it held stays spent, and no recall waits for it. */
    onExit(worker: number) {
      ledger.forget(worker);
      for (const key of [...recalls.keys()]) answered(key, worker);
    },
    stop() {
      clearInterval(sweep);
      for (const recall of recalls.values()) clearTimeout(recall.timer);
      recalls.clear();
    },
  };
}

/** In the primary of `tessera start --workers N` without Redis: serves its workers' rate limits until `stop()`. */
export function serveClusterRateLimits(): { stop(): void } {
  const leases = serveRateLimitLeases({
    send(worker, message) {
      const target = cluster.workers?.[worker];
      if (target?.isConnected()) target.send(message);
    },
    workers: () => Object.keys(cluster.workers ?? {}).length,
  });
  const onMessage = (worker: Worker, message: unknown) => leases.onMessage(worker.id, message);
  const onExit = (worker: Worker) => leases.onExit(worker.id);
  cluster.on('message', onMessage);
  cluster.on('exit', onExit);
  return {
    stop() {
      leases.stop();
      cluster.off('message', onMessage);
      cluster.off('exit', onExit);
    },
  };
}
