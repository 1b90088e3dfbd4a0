/**
 * The service's Prometheus metrics, in a registry of its own: two services in one process
 * (tests, embedding) never share counters, and nothing lands in prom-client's global registry.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { IdentifyOutcome } from '../identification/identifier.js';
import { checkpointTotals, storeLoad } from '../store/health.js';
import type { CheckpointStep } from '../store/wal-checkpointer.js';
import type { Store } from '../store/index.js';

export interface ServiceMetrics {
  registry: Registry;
  /** `route` is the route's pattern (`/v4/events/:event_id`), never the raw URL. */
  requestDone(method: string, route: string, status: number, seconds: number): void;
  identified(path: IdentifyOutcome['path']): void;
  refused(code: string): void;
  /** Rows the retention job deleted: expired events, and webhook deliveries (with their events, or settled and past their window). */
  purged(table: 'events' | 'webhook_deliveries', count: number): void;
}

export function createMetrics(store: Store): ServiceMetrics {
  const registry = new Registry();
  // Process metrics, among them nodejs_eventloop_lag_seconds.
  collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'tessera_http_requests_total', help: 'HTTP requests answered', labelNames, registers: [registry] });
  const latency = new Histogram({
    name: 'tessera_http_request_duration_seconds',
    help: 'Time to answer an HTTP request',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const identifications = new Counter({
    name: 'tessera_identifications_total',
    help: 'Identifications by how the visitor was found: token, link (matched a known visitor), relink (a young ID moved back to an earlier one) or new',
    labelNames: ['path'] as const,
    registers: [registry],
  });
  const refusals = new Counter({
    name: 'tessera_identification_refusals_total',
    help: 'Identification requests refused, by error code',
    labelNames: ['code'] as const,
    registers: [registry],
  });
  const purges = new Counter({
    name: 'tessera_retention_purged_total',
    help: 'Rows deleted by the retention job, by table: events (expired), webhook_deliveries (of expired events, or settled and past --webhook-retention-days)',
    labelNames: ['table'] as const,
    registers: [registry],
  });
  // Present from the start (at 0), so a dashboard can tell "nothing purged" from "no data".
  for (const table of ['events', 'webhook_deliveries']) purges.inc({ table }, 0);
  new Gauge({
    name: 'tessera_db_queued_writes',
    help: 'Writes waiting for the next shared transaction (SQLite) or multi-row insert (PostgreSQL)',
    registers: [registry],
    collect() {
      this.set(storeLoad(store).queuedWrites);
    },
  });
  new Gauge({
    name: 'tessera_db_pool_connections',
    help: 'PostgreSQL pool connections by state: total, idle, waiting (clients queued for one)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const connections = storeLoad(store).connections;
      if (!connections) return;
      for (const [state, count] of Object.entries(connections)) this.set({ state }, count);
    },
  });
  // SQLite, in the process that runs the WAL checkpoint worker: its steps' counts and time, as
  // counters kept by the worker (read, not counted here). Absent elsewhere.
  if (checkpointTotals(store)) {
    const stepCounter = (name: string, help: string, field: keyof CheckpointStep) =>
      new Counter({
        name,
        help,
        labelNames: ['step'] as const,
        registers: [registry],
        collect() {
          const totals = checkpointTotals(store);
          if (!totals) return;
          this.reset();
          for (const step of ['passive', 'sync', 'restart'] as const) this.inc({ step }, totals[step][field]);
        },
      });
    stepCounter(
      'tessera_sqlite_checkpoints_total',
      "SQLite WAL checkpoint worker's steps by step: passive (copies the log into the database file), sync (syncs that file), restart (copies the last frames and syncs with the write lock held, so that the log starts over: commits wait meanwhile)",
      'count',
    );
    stepCounter('tessera_sqlite_checkpoint_seconds_total', "Time the SQLite WAL checkpoint worker's steps took, by step (see tessera_sqlite_checkpoints_total)", 'seconds');
  }
  return {
    registry,
    requestDone(method, route, status, seconds) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      latency.observe(labels, seconds);
    },
    identified(path) {
      identifications.inc({ path: path === 'token' || path === 'new' || path === 'relink' ? path : 'link' });
    },
    refused(code) {
      refusals.inc({ code });
    },
    purged(table, count) {
      if (count > 0) purges.inc({ table }, count);
    },
  };
}
