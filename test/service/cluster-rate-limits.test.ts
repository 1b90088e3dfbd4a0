/**
 * The rate limits of `tessera start --workers N` without Redis, in one process: the primary's
 * side (serveRateLimitLeases) and several workers' lease limiters, joined by channels that
 * deliver each message asynchronously and in order, as node:cluster's IPC does. The whole
 * cluster is covered by workers.test.ts; here the interleavings, windows and failures are
 * driven one by one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LeaseLedger, leaseKey } from '../../src/service/cluster-rate-limits/lease-ledger.js';
import { createLeaseLimiter } from '../../src/service/cluster-rate-limits/lease-limiter.js';
import { serveRateLimitLeases } from '../../src/service/cluster-rate-limits/primary.js';

interface TestWorker {
  limiter: ReturnType<typeof createLeaseLimiter>;
  /** Messages this worker sent, by type. */
  sent: Map<string, number>;
  /** Messages the primary sent this worker (delivered or not), by type. */
  addressed: Map<string, number>;
  /** Stops delivering in both directions (the process died or hangs). */
  cut(): void;
}

const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

/** A primary and `n` workers; `timeoutMs` is each worker's wait for an answer. */
function cluster(n: number, timeoutMs = 5000) {
  const inboxes = new Map<number, (message: unknown) => void>();
  const addressed = new Map<number, Map<string, number>>();
  const alive = new Set<number>();
  const primary = serveRateLimitLeases({
    send: (worker, message) => {
      const counts = addressed.get(worker)!;
      counts.set(message.type, (counts.get(message.type) ?? 0) + 1);
      if (alive.has(worker)) setImmediate(() => alive.has(worker) && inboxes.get(worker)!(message));
    },
    workers: () => alive.size,
  });
  stops.push(() => primary.stop());
  const workers: TestWorker[] = [];
  for (let id = 1; id <= n; id++) {
    alive.add(id);
    addressed.set(id, new Map());
    const sent = new Map<string, number>();
    const limiter = createLeaseLimiter(
      {
        send: (message) => {
          sent.set(message.type, (sent.get(message.type) ?? 0) + 1);
          if (alive.has(id)) setImmediate(() => primary.onMessage(id, message));
        },
        on: (_event, listener) => inboxes.set(id, listener),
      },
      timeoutMs,
    );
    workers.push({ limiter, sent, addressed: addressed.get(id)!, cut: () => alive.delete(id) });
  }
  return { primary, workers, die: (index: number) => (workers[index]!.cut(), primary.onExit(index + 1)) };
}

const allowedOf = (decisions: { allowed: boolean }[]) => decisions.filter((d) => d.allowed).length;

describe('rate limits leased to the workers', () => {
  it('allows exactly the limit across three workers, however their requests interleave', async () => {
    const { workers } = cluster(3);
    const LIMIT = 50;
    const order = Array.from({ length: 300 }, (_, i) => workers[(i * 7 + (i >> 3)) % 3]!);
    const decisions = await Promise.all(order.map((w) => w.limiter.consume('ingest:k1', LIMIT, 1)));
    expect(allowedOf(decisions)).toBe(LIMIT);
    for (const refused of decisions.filter((d) => !d.allowed)) expect(refused.retryAfterSeconds).toBe(1);
    // Every worker took part.
    for (const w of workers) expect(w.sent.get('ask')).toBeGreaterThan(0);
  });

  it('takes back points another worker leased and did not spend, before it refuses', async () => {
    const { workers } = cluster(2);
    const [a, b] = workers as [TestWorker, TestWorker];
    const LIMIT = 40;
    // One at a time: a's leases grow (1, 2, 4, ...), so it holds points it has not spent.
    for (let i = 0; i < 24; i++) expect((await a.limiter.consume('k', LIMIT, 1)).allowed).toBe(true);
    const fromB = await Promise.all(Array.from({ length: 30 }, () => b.limiter.consume('k', LIMIT, 1)));
    expect(allowedOf(fromB)).toBe(LIMIT - 24);
    expect(a.sent.get('returned')).toBeGreaterThan(0);
    // a's lease went back: it is refused too.
    expect((await a.limiter.consume('k', LIMIT, 1)).allowed).toBe(false);
  });

  it('asks the primary a few times per window, not once per request', async () => {
    const { workers } = cluster(2);
    const [a] = workers as [TestWorker];
    for (let i = 0; i < 500; i++) expect((await a.limiter.consume('k', 1000, 1)).allowed).toBe(true);
    expect(a.sent.get('ask')).toBeLessThanOrEqual(10);
  });

  it('counts each limit of a bucket and each bucket apart', async () => {
    const { workers } = cluster(2);
    const [a, b] = workers as [TestWorker, TestWorker];
    const burst = (w: TestWorker, bucket: string, limit: number) => Promise.all(Array.from({ length: 20 }, () => w.limiter.consume(bucket, limit, 1)));
    expect(allowedOf(await burst(a, 'one', 5))).toBe(5);
    expect(allowedOf(await burst(b, 'two', 7))).toBe(7);
    // The key's limit was raised: it counts anew.
    expect(allowedOf(await burst(b, 'one', 8))).toBe(8);
  });

  it('gives fresh points when the window ends, and says when that is', async () => {
    const { workers } = cluster(2);
    const [a, b] = workers as [TestWorker, TestWorker];
    const WINDOW_SECONDS = 0.3;
    expect(allowedOf(await Promise.all([a, b, a, b].map((w) => w.limiter.consume('k', 3, WINDOW_SECONDS))))).toBe(3);
    const refused = await b.limiter.consume('k', 3, WINDOW_SECONDS);
    expect(refused).toEqual({ allowed: false, retryAfterSeconds: 1 });
    await new Promise((resolve) => setTimeout(resolve, WINDOW_SECONDS * 1000 + 50));
    expect(allowedOf(await Promise.all([b, a, b, a].map((w) => w.limiter.consume('k', 3, WINDOW_SECONDS))))).toBe(3);
  });

  it("keeps a dead worker's leased points spent, and does not wait for it", async () => {
    const { workers, die } = cluster(2);
    const [a, b] = workers as [TestWorker, TestWorker];
    const LIMIT = 30;
    for (let i = 0; i < 10; i++) await a.limiter.consume('k', LIMIT, 1);
    die(0);
    const fromB = await Promise.all(Array.from({ length: 40 }, () => b.limiter.consume('k', LIMIT, 1)));
    // Never more than the limit: a's unspent points are lost for this window, not given to b.
    expect(allowedOf(fromB)).toBeLessThanOrEqual(LIMIT - 10);
    expect(allowedOf(fromB)).toBeGreaterThan(0);
    expect(fromB.filter((d) => !d.allowed).length).toBeGreaterThan(0);
    // b was refused without a recall to the dead worker (which would have waited out its timeout).
    expect(a.addressed.get('recall')).toBeUndefined();
  });

  it('goes on without a worker that does not answer a recall, counting what it held as spent', async () => {
    const { workers } = cluster(2);
    const [a, b] = workers as [TestWorker, TestWorker];
    const LIMIT = 30;
    for (let i = 0; i < 10; i++) await a.limiter.consume('k', LIMIT, 1);
    a.cut(); // alive to the primary, but it never answers
    const fromB = await Promise.all(Array.from({ length: 40 }, () => b.limiter.consume('k', LIMIT, 1)));
    expect(allowedOf(fromB)).toBeLessThanOrEqual(LIMIT - 10);
    expect(fromB.filter((d) => !d.allowed).length).toBeGreaterThan(0);
    // It was asked, and b's refusal came once the recall had timed out.
    expect(a.addressed.get('recall')).toBe(1);
  });

  it('fails the requests waiting on a primary that does not answer', async () => {
    const { workers } = cluster(1, 100);
    const [a] = workers as [TestWorker];
    a.cut();
    await expect(a.limiter.consume('k', 10, 1)).rejects.toThrow(/did not answer within 100 ms/);
  });
});

describe('the ledger', () => {
  it("leases at most half of a worker's share of what is left, and at least one point", () => {
    const ledger = new LeaseLedger();
    const key = leaseKey('k', 100, 1000);
    const ask = (worker: number, want: number) => ledger.ask({ worker, key, points: 100, windowMs: 1000, want, workers: 2 }, 0);
    expect(ask(1, 1000)).toEqual({ kind: 'grant', granted: 25, windowEnd: 1000 });
    expect(ask(2, 5)).toEqual({ kind: 'grant', granted: 5, windowEnd: 1000 });
    let left = 70;
    while (left > 0) {
      const answer = ask(2, 1000);
      expect(answer.kind).toBe('grant');
      const granted = (answer as { granted: number }).granted;
      expect(granted).toBe(Math.max(1, Math.floor(left / 4)));
      left -= granted;
    }
    // Nothing left: worker 1 holds points, so worker 2's ask recalls them.
    expect(ask(2, 1)).toEqual({ kind: 'recall', from: [1], windowEnd: 1000 });
    ledger.returned(1, key, 20, 1000);
    expect(ask(2, 100)).toEqual({ kind: 'grant', granted: 5, windowEnd: 1000 });
    // A dead worker is not waited for: what it held stays spent.
    ask(1, 100);
    ledger.forget(1);
    while ((ask(2, 100) as { granted?: number }).granted) {
      // spends what is left
    }
    expect(ask(2, 1)).toEqual({ kind: 'grant', granted: 0, windowEnd: 1000 });
    // Points of an ended window are not taken back into the next one.
    ledger.returned(2, key, 3, 999);
    expect(ledger.size).toBe(1);
    ledger.sweep(1000);
    expect(ledger.size).toBe(0);
  });
});
