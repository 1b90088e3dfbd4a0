/**
 * The cost of each signal source in Chromium, for `bench/agent-speed.ts`. The production bundle
 * carries no timing code: with the test-only bundle of the sources
 * (e2e/agent/helpers/sources-bundle.ts), this calls them one at a time, in `SOURCES` order, in
 * a fresh page per run, and records how long each holds the main thread (its synchronous part)
 * and how long until its value is there (asynchronous work included: audio rendering, storage
 * estimate, digests). A cost paid once per page (the first canvas, the first font lookups)
 * falls on the first source that pays it, as it does in the agent.
 */
import type { Browser } from 'playwright-core';
import type { SourcesGlobal } from '../e2e/agent/helpers/sources-bundle.js';

/** Per source: main-thread ms and ms until the value, one entry per run. */
export type SourceCosts = Record<string, { sync: number[]; value: number[] }>;

/** Runs every source alone, in order, in `runs` fresh pages of `pageUrl` (a page without the agent). */
export async function measureSourceCosts(browser: Browser, pageUrl: string, code: string, runs: number): Promise<SourceCosts> {
  const costs: SourceCosts = {};
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(pageUrl);
      await page.addScriptTag({ content: code });
      const run = await page.evaluate(async () => {
        const { SOURCES } = (window as unknown as SourcesGlobal).TesseraSources;
        const out: Record<string, [number, number]> = {};
        for (const [name, source] of Object.entries(SOURCES)) {
          const t0 = performance.now();
          let value: unknown;
          try {
            value = source();
          } catch {
            // a failing source costs what it took
          }
          const t1 = performance.now();
          await Promise.resolve(value).catch(() => undefined);
          out[name] = [t1 - t0, performance.now() - t0];
        }
        return out;
      });
      for (const [name, [sync, value]] of Object.entries(run)) {
        const c = (costs[name] ??= { sync: [], value: [] });
        c.sync.push(sync);
        c.value.push(value);
      }
    } finally {
      await context.close();
    }
  }
  return costs;
}
