/**
 * The service's background work, on one timer: executing scheduled visitor deletions, the
 * retention purge (expired events with their webhook deliveries, then settled deliveries past
 * their own window), (every 10 minutes) fresh planner statistics and (every hour, and whenever
 * the clock's day changed) the PostgreSQL partitions of the weeks ahead. Tests drive it with
 * `runOnce()` and an injected clock instead of waiting.
 */
import type { ServiceContext } from '../context.js';
import { startPeriodicTask } from '../scheduling/periodic-task.js';
import { executeScheduledDeletions, pruneDeletionRecords } from '../server-api/visitor-deletion.js';
import { purgeExpiredEvents, purgeSettledWebhookDeliveries } from './retention.js';
import { refreshPlannerStatistics } from '../store/statistics.js';
import { maintainEventPartitions } from '../store/events.js';

export interface BackgroundJobs {
  /** One full pass; concurrent calls share the pass already running. */
  runOnce(): Promise<void>;
  /** Stops the timer and waits for a running pass to finish. */
  stop(): Promise<void>;
}

/** Deletions run "shortly after" the request: within this interval. */
export const JOBS_INTERVAL_MS = 10_000;
const STATISTICS_INTERVAL_MS = 10 * 60 * 1000;
const PARTITIONS_INTERVAL_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

export function startBackgroundJobs(
  ctx: Pick<ServiceContext, 'store' | 'clock' | 'config' | 'logger' | 'metrics'>,
  opts: { intervalMs?: number; timer?: boolean } = {},
): BackgroundJobs {
  /** Wall-clock time of the last statistics refresh (not the injected clock: it is upkeep). */
  let statisticsAt = -Infinity;
  /** Wall-clock time and clock day of the last partition upkeep (the first pass does it). */
  let partitionsAt = -Infinity;
  let partitionsDay = -1;

  const pass = async (): Promise<void> => {
    const now = ctx.clock();
    const deletions = await executeScheduledDeletions(ctx.store, now);
    await pruneDeletionRecords(ctx.store, now);
    const expired = await purgeExpiredEvents(ctx.store, now, ctx.config.retentionDays);
    const settled = await purgeSettledWebhookDeliveries(ctx.store, now, ctx.config.webhookRetentionDays);
    ctx.metrics.purged('events', expired.events);
    ctx.metrics.purged('webhook_deliveries', expired.deliveries + settled);
    if (Date.now() - statisticsAt >= STATISTICS_INTERVAL_MS) {
      statisticsAt = Date.now();
      await refreshPlannerStatistics(ctx.store);
    }
    if (deletions.visitors > 0 || expired.events > 0 || expired.deliveries > 0 || settled > 0) {
      ctx.logger.info(
        {
          deletions: deletions.visitors,
          deletedDeliveries: deletions.deliveries,
          purged: expired.events,
          purgedDeliveries: expired.deliveries + settled,
        },
        'background jobs: visitors deleted, expired events and settled webhook deliveries purged',
      );
    }
    // Last, so that a failure here (a lock on events not granted in time) delays nothing else;
    // the partitions are made weeks ahead, an hour's delay costs nothing.
    const day = Math.floor(now / DAY_MS);
    if (Date.now() - partitionsAt >= PARTITIONS_INTERVAL_MS || day !== partitionsDay) {
      partitionsAt = Date.now();
      partitionsDay = day;
      const created = await maintainEventPartitions(ctx.store, now);
      if (created.length > 0) ctx.logger.info({ partitions: created }, 'background jobs: event partitions created');
    }
  };

  const interval = opts.intervalMs ?? JOBS_INTERVAL_MS;
  return startPeriodicTask({
    pass,
    firstDelay: interval,
    nextDelay: () => interval,
    onError: (err) => ctx.logger.error({ err }, 'background jobs failed; retrying on the next tick'),
    timer: opts.timer,
  });
}
