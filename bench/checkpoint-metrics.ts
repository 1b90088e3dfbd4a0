/**
 * The SQLite WAL checkpoint worker's totals as a running `tessera start` serves them at
 * `/metrics` (tessera_sqlite_checkpoint_seconds_total and tessera_sqlite_checkpoints_total by
 * step). With `--workers N` only the worker that runs the background jobs has them, and the
 * primary hands each new connection to the next worker: asked over a new connection each time,
 * until one answers with them.
 */
import { get } from 'node:http';

export interface CheckpointSample {
  /** Seconds per step (passive, sync, restart) since the worker started. */
  seconds: Record<string, number>;
  /** Steps per step name since the worker started. */
  counts: Record<string, number>;
}

function metricsText(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // agent: false, a connection of its own, so that the primary may hand it to another worker.
    get(`${url}/metrics`, { agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve(text));
    }).on('error', reject);
  });
}

function byStep(text: string, name: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of text.matchAll(new RegExp(`^${name}\\{step="(\\w+)"\\} (\\S+)$`, 'gm'))) out[m[1]!] = Number(m[2]);
  return out;
}

/** The totals, or undefined when none of `attempts` answers had them (no checkpoint worker). */
export async function scrapeCheckpoints(url: string, attempts: number): Promise<CheckpointSample | undefined> {
  for (let i = 0; i < attempts; i++) {
    const text = await metricsText(url);
    if (text.includes('tessera_sqlite_checkpoint_seconds_total{')) {
      return { seconds: byStep(text, 'tessera_sqlite_checkpoint_seconds_total'), counts: byStep(text, 'tessera_sqlite_checkpoints_total') };
    }
  }
  return undefined;
}

/** What the worker did between two samples, over `wallSeconds`: its share of that time per step, and its restarts. */
export function checkpointActivity(before: CheckpointSample, after: CheckpointSample, wallSeconds: number) {
  const share = (step: string) => ((after.seconds[step] ?? 0) - (before.seconds[step] ?? 0)) / wallSeconds;
  return {
    passive: share('passive'),
    sync: share('sync'),
    restart: share('restart'),
    restarts: (after.counts.restart ?? 0) - (before.counts.restart ?? 0),
  };
}
