/**
 * What each costly signal source adds to a first page's `start()` + `get()`, for
 * `bench/agent-speed.ts`. A source alone (agent-source-costs.ts) can cost less than it does
 * beside the others: on two cores a worker's start, audio rendering and the round trips to the
 * browser's font and GPU processes contend with one another. So the agent is built once more
 * (bench-only, unminified) with its sources behind a filter, and each named source is left out
 * of the collection in fresh contexts, alternated with the whole agent. The production bundles
 * carry no such filter.
 */
import { resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { rollup, type Plugin } from 'rollup';
import { loadConfigFile } from 'rollup/loadConfigFile';
import { timeFirstGet } from './agent-first-get.js';

const FILTERED = '\0tessera-filtered-sources';
/** The page global naming the sources to leave out. */
const LEAVE_OUT = '__tesseraLeaveOut';

/** The agent's IIFE (global `Tessera`) whose collection skips the sources `window.__tesseraLeaveOut` names. */
export async function buildLeaveOutBundle(): Promise<string> {
  const { options } = await loadConfigFile(resolve('rollup.config.mjs'), {});
  const signals = resolve('src/agent/signals/index.ts');
  const filter: Plugin = {
    name: 'filtered-sources',
    resolveId: (id, importer) =>
      id === FILTERED ? FILTERED : id === './signals/index.js' && importer === resolve('src/agent/collect.ts') ? FILTERED : null,
    // Object.entries() of the proxy lists the target's keys less the ones left out at that moment.
    load: (id) =>
      id === FILTERED
        ? `import { SOURCES as ALL } from ${JSON.stringify(signals)};
           export const SOURCES = new Proxy(ALL, { ownKeys: (t) => Reflect.ownKeys(t).filter((k) => !(globalThis.${LEAVE_OUT} || []).includes(k)) });`
        : null,
  };
  const bundle = await rollup({ input: resolve('src/agent/index.ts'), plugins: [filter, ...options[0]!.plugins] });
  try {
    const { output } = await bundle.generate({ format: 'iife', name: 'Tessera', exports: 'named' });
    return output[0].code;
  } finally {
    await bundle.close();
  }
}

export interface LeaveOutTimes {
  /** start() + get(), ms. */
  total: number[];
  /** Until the request started (signal collection), ms. */
  signals: number[];
}

/**
 * In `runs` rounds, one fresh context per variant (the whole agent, then each of `names` left
 * out), in order: the first page of each, `start()` + `get()` against `service`.
 */
export async function measureLeaveOneOut(
  browser: Browser,
  pageUrl: string,
  code: string,
  service: { url: string; publicKey: string },
  names: readonly string[],
  runs: number,
): Promise<Map<string | null, LeaveOutTimes>> {
  const variants = [null, ...names];
  const times = new Map<string | null, LeaveOutTimes>(variants.map((v) => [v, { total: [], signals: [] }]));
  for (let i = 0; i < runs; i++) {
    for (const left of variants) {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto(pageUrl);
        await page.addScriptTag({ content: code });
        await page.evaluate(([global, names]) => ((window as unknown as Record<string, unknown>)[global] = names), [LEAVE_OUT, left === null ? [] : [left]] as const);
        const run = await page.evaluate(timeFirstGet, { url: service.url, key: service.publicKey });
        times.get(left)!.total.push(run.total);
        times.get(left)!.signals.push(run.signals);
      } finally {
        await context.close();
      }
    }
  }
  return times;
}
