import { describe, expect, it } from 'vitest';
import { browserRequests } from '../../bench/browser-requests.js';
import { populationRequests } from '../../bench/population-requests.js';

// The service benchmark's population (bench/service-throughput.ts) and its default connections.
const SEED = 'service-throughput';
const BROWSERS = 3000;
const CONNECTIONS = 50;

describe('the load benchmarks\' later visits', () => {
  const { later } = browserRequests(SEED, BROWSERS, 'pk_test');

  it('hold every later visit of the population once, each browser\'s in its own order', () => {
    const expected = populationRequests(SEED, BROWSERS, 'pk_test').filter((r) => !r.first);
    expect(later).toHaveLength(expected.length);
    const heads = (list: { browser: number; head: string }[]) => {
      const perBrowser = new Map<number, string[]>();
      for (const r of list) {
        const own = perBrowser.get(r.browser) ?? [];
        own.push(r.head);
        perBrowser.set(r.browser, own);
      }
      return perBrowser;
    };
    const fromPopulation = heads(expected.map((r) => ({ browser: r.browser, head: JSON.stringify(r.request).slice(0, -1) })));
    expect(heads(later)).toEqual(fromPopulation);
  });

  it('keep a browser\'s visits further apart than a load has connections', () => {
    const firstAt = new Map<number, number>();
    const lastAt = new Map<number, number>();
    let closest = Infinity;
    later.forEach((r, i) => {
      const previous = lastAt.get(r.browser);
      if (previous !== undefined) closest = Math.min(closest, i - previous);
      if (!firstAt.has(r.browser)) firstAt.set(r.browser, i);
      lastAt.set(r.browser, i);
    });
    // The load generators cycle through the list: a browser's last visit is followed by its first.
    for (const [browser, last] of lastAt) closest = Math.min(closest, firstAt.get(browser)! + later.length - last);
    expect(closest).toBeGreaterThan(CONNECTIONS);
  });
});
