/**
 * The webhook worker: drains the outbox (store/webhook-deliveries.ts). Each pass claims due
 * deliveries under a lease, sends them concurrently, then logs the attempts and settles their
 * deliveries in one transaction: delivered on 2xx, otherwise retried with backoff (backoff.ts)
 * until its 24 h window ends, then failed. Delivery is at least once: a worker killed after
 * sending but before settling leaves a lease that expires, and the delivery is sent again.
 *
 * Hand-off: the deliveries an identification of this process queues are leased to its worker
 * as they are written (outbox.ts `DeliveryHandOff`), and sent as soon as their event is
 * committed, up to `webhookTiming.handOffLimit` sends in flight (a slow receiver cannot pile
 * up memory); their attempts are settled together like a pass's. Beyond that limit, or once
 * the worker stopped, deliveries wait for a claim.
 *
 * Waking: an idle worker polls every `pollMs` (200 ms by default: one indexed query) for what
 * the hand-off did not send: retries, deliveries queued by other processes or beyond the
 * limit, and leases of a process that died; while it finds full batches it claims again at
 * once. A store without any webhook is not polled at all (the claim is a write; the check is a
 * cached read, store/webhooks.ts).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import type { ResolvedConfig } from '../config.js';
import type { ServiceContext } from '../context.js';
import { startPeriodicTask } from '../scheduling/periodic-task.js';
import { claimDueDeliveries, recordAttempts, type AttemptOutcome, type AttemptRecord, type ClaimedDelivery, type Settlement } from '../store/webhook-deliveries.js';
import { anyWebhookCached } from '../store/webhooks.js';
import { retryDelay } from './backoff.js';
import { createSender, type Sender, type SenderOptions, type SendResult } from './sender.js';
import type { DeliveryHandOff } from './outbox.js';
import { createThreadedSender } from './threaded-sender.js';

/** Deliveries claimed per pass: bounds concurrent requests per process (the sender pools 16 connections per receiver). */
const BATCH = 50;
/** How long the attempts of handed-off sends wait to be settled together. */
const SETTLE_DELAY_MS = 100;

/** An attempt, what to record of it and the send's result. */
type AttemptResult = AttemptRecord & { sent: SendResult };

/** Handed-off attempts waiting to be settled together. */
interface SettlementGroup {
  records: AttemptResult[];
  /** Settles the group now. */
  start(): void;
  settled: Promise<void>;
}

export interface WebhookWorker extends DeliveryHandOff {
  /** One claim-and-send pass; returns how many deliveries it attempted. */
  runOnce(): Promise<number>;
  /** Stops polling and handing off, and waits for the sends in flight (each ends within the send timeout). */
  stop(): Promise<void>;
}

/** What the configuration says of sending: SSRF policy and the trusted CAs. */
function senderOptions(config: Pick<ResolvedConfig, 'allowPrivateWebhookTargets' | 'webhookCaFile'>): SenderOptions {
  const ca = config.webhookCaFile ? [...rootCertificates, readFileSync(config.webhookCaFile, 'utf8')] : undefined;
  return { allowPrivateTargets: config.allowPrivateWebhookTargets, ca };
}

/** A sender on the calling thread, for a single request (a verification). */
export function senderFromConfig(config: Pick<ResolvedConfig, 'allowPrivateWebhookTargets' | 'webhookCaFile'>): Sender {
  return createSender(senderOptions(config));
}

/**
 * The request headers of a delivery: JSON and basic auth when configured. The signature is
 * added by the sender (its `signingKey`), in the delivery thread.
 */
export function deliveryHeaders(webhook: ClaimedDelivery['webhook']): Record<string, string> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'User-Agent': 'Tessera-Webhooks/1' };
  if (webhook.basic_auth_username !== null) {
    const credentials = `${webhook.basic_auth_username}:${webhook.basic_auth_password ?? ''}`;
    headers.Authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
  }
  return headers;
}

export function startWebhookWorker(
  ctx: Pick<ServiceContext, 'store' | 'clock' | 'config' | 'logger'>,
  opts: { sender?: Sender; timer?: boolean } = {},
): WebhookWorker {
  const { store, clock, logger } = ctx;
  const timing = ctx.config.webhookTiming;
  // The worker's stream of deliveries is sent from a thread of its own (threaded-sender.ts).
  const threaded = opts.sender ? undefined : createThreadedSender(senderOptions(ctx.config));
  const sender = opts.sender ?? threaded!;
  const owner = randomUUID();

  /** Sends one claimed delivery; what to record of it. */
  const attempt = (claimed: ClaimedDelivery): Promise<AttemptResult> => {
    // Only these are kept while the request is out, not the delivery with its body (a few KiB
    // each, which would otherwise outlive the young generation and cost more to collect).
    const { id, attempts, give_up_at: giveUpAt, payload } = claimed.delivery;
    const { webhook } = claimed;
    const attemptedAt = clock();
    const sending: Promise<SendResult> =
      webhook.status === 'enabled'
        ? sender(webhook.url, payload, deliveryHeaders(webhook), webhook.signing_key)
        : Promise.resolve({ ok: false, httpStatus: null, latencyMs: 0, error: 'webhook disabled: not sent' });
    return sending.then((sent) => recordOf(id, webhook.id, webhook.status === 'enabled', attempts, giveUpAt, attemptedAt, sent));
  };

  /** What to record of an attempt of delivery `id`, which had failed `attempts` times before. */
  const recordOf = (id: string, webhookId: string, enabled: boolean, attempts: number, giveUpAt: number, attemptedAt: number, sent: SendResult): AttemptResult => {
    const failures = attempts + 1;
    const retryAt = clock() + retryDelay(failures, { baseMs: timing.backoffBaseMs, capMs: timing.backoffCapMs });
    const outcome: AttemptOutcome = sent.ok ? { status: 'delivered' } : enabled && retryAt < giveUpAt ? { status: 'retry', at: retryAt } : { status: 'failed' };
    return {
      deliveryId: id,
      webhookId,
      attempt: { attempted_at: attemptedAt, http_status: sent.httpStatus, latency_ms: sent.latencyMs, error: sent.error },
      outcome,
      sent,
    };
  };

  /** Logs attempts and settles their deliveries, in one transaction. */
  const settle = async (records: readonly AttemptResult[]): Promise<void> => {
    let settled: Settlement[];
    try {
      settled = await recordAttempts(store, owner, records);
    } catch (err) {
      logger.error({ err, deliveries: records.length }, 'webhook attempts not recorded; the deliveries are retried after their lease');
      return;
    }
    records.forEach(({ deliveryId, webhookId, outcome, sent }, i) => {
      if (settled[i] === 'deleted') logger.info({ delivery: deliveryId }, 'webhook delivery deleted during the send (its webhook, event or visitor was deleted); not recorded');
      else if (settled[i] === 'lease-lost') logger.warn({ delivery: deliveryId }, 'webhook delivery lease lost during the send; another worker retries it');
      else if (!sent.ok) logger.info({ delivery: deliveryId, webhook: webhookId, error: sent.error, outcome: outcome.status }, 'webhook attempt failed');
    });
  };

  const pass = async (): Promise<number> => {
    if (!(await anyWebhookCached(store))) return 0;
    const claimed = await claimDueDeliveries(store, { owner, now: clock(), leaseMs: timing.leaseMs, limit: BATCH });
    if (claimed.length === 0) return 0;
    // The sends run concurrently; their attempts are recorded together, in one transaction.
    await settle(await Promise.all(claimed.map(attempt)));
    return claimed.length;
  };

  // Handed-off attempts are settled in groups, as a pass's are: each commit costs about as much
  // as its writes, so one per attempt would cost more than the sends. A group is settled
  // SETTLE_DELAY_MS after its first attempt ended, or once it holds a pass's BATCH.
  let handingOff = true;
  let inFlight = 0;
  let group: SettlementGroup | undefined;
  const settleInGroup = (record: AttemptResult): Promise<void> => {
    if (!group) {
      let start!: () => void;
      const started = new Promise<void>((resolve) => (start = resolve));
      const timer = setTimeout(start, SETTLE_DELAY_MS);
      const current: SettlementGroup = {
        records: [],
        start: () => {
          clearTimeout(timer);
          start();
        },
        settled: started.then(() => {
          if (group === current) group = undefined;
          return settle(current.records);
        }),
      };
      group = current;
    }
    group.records.push(record);
    const { settled } = group;
    if (group.records.length >= BATCH) group.start();
    return settled;
  };
  const handedOff = new Set<Promise<void>>();
  const handOff = (delivery: ClaimedDelivery) => {
    inFlight++;
    const id = delivery.delivery.id;
    const sending = attempt(delivery)
      .then(
        (record) => settleInGroup(record),
        (err: unknown) => logger.error({ err, delivery: id }, 'handed-off webhook delivery failed; it is retried after its lease'),
      )
      .finally(() => {
        inFlight--;
        handedOff.delete(sending);
      });
    handedOff.add(sending);
  };

  const task = startPeriodicTask({
    pass,
    firstDelay: timing.pollMs,
    // A full batch suggests more are due: the next pass runs at once.
    nextDelay: (claimed) => (claimed !== undefined && claimed >= BATCH ? 0 : timing.pollMs),
    onError: (err) => logger.error({ err }, 'webhook worker pass failed; retrying'),
    timer: opts.timer,
  });
  return {
    runOnce: () => task.runOnce(),
    lease: (now) => (handingOff && inFlight < timing.handOffLimit ? { owner, until: now + timing.leaseMs } : undefined),
    // Leased just before a stop: left to a claim once the lease ends.
    send: (deliveries) => {
      if (handingOff) deliveries.forEach(handOff);
    },
    async stop() {
      handingOff = false;
      await task.stop();
      await Promise.all(handedOff);
      await threaded?.close();
    },
  };
}
