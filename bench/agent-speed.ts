/**
 * `npm run bench:agent`: in headless Chromium, against a local real service (SQLite), the
 * median time of Tessera's `start()` + first `get()` (signals, request, identification,
 * response), and of a cached `get()`, next to the open-source peer's `FingerprintJS.load()` +
 * `get()` measured in the same run. Each cold run is a fresh browser context (empty storage),
 * followed by a second page of the same context (the agent finds its visitor token and kept
 * private-mode verdict there); times are taken inside the page with performance.now(), script
 * download excluded for both.
 * Then the cost of each signal source, measured alone in fresh pages by a bench-only bundle
 * (bench/agent-source-costs.ts; the production bundle carries no timing code), and what leaving
 * each of the costliest out of the whole agent saves (bench/agent-leave-one-out.ts).
 */
import { cpus, loadavg } from 'node:os';
import { startTestService } from '../test/helpers/test-service.js';
import { launchChromium } from '../e2e/helpers/chromium.js';
import { startPageServer } from '../e2e/agent/helpers/page-server.js';
import { buildSourcesBundle } from '../e2e/agent/helpers/sources-bundle.js';
import { timeFirstGet } from './agent-first-get.js';
import { buildLeaveOutBundle, measureLeaveOneOut } from './agent-leave-one-out.js';
import { measureSourceCosts } from './agent-source-costs.js';
import { writeBenchOutput } from './bench-output.js';
import { browserRequests, sendFirstVisits } from './browser-requests.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const CACHED_GETS = 200;
const WARM_UP_BROWSERS = 300;
const SOURCE_RUNS = Number(process.env.BENCH_SOURCE_RUNS ?? 7);
// Sources cheaper than this (median, main thread and value alike) are summed in one row.
const CHEAP_MS = 0.3;
// The costliest sources alone (until their value) that are each left out of the whole agent once.
const LEFT_OUT_SOURCES = 6;
const LEAVE_OUT_RUNS = Number(process.env.BENCH_LEAVE_OUT_RUNS ?? 21);

/** The q-quantile of `xs`, interpolated between the nearest ranks (the median of an even count: the mean of the middle two). */
const interpolated = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  return s[lo]! + (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!) * (at - lo);
};
const median = (xs: number[]) => interpolated(xs, 0.5);

const [svc, site, browser, sourcesBundle, leaveOutBundle] = await Promise.all([
  startTestService(),
  startPageServer(),
  launchChromium(),
  buildSourcesBundle(),
  buildLeaveOutBundle(),
]);
try {
  // A production service is warm: without this the timed requests met unoptimised code.
  await sendFirstVisits(svc.url, browserRequests('agent-speed-warm-up', WARM_UP_BROWSERS, svc.keys.publicKey, { origin: true }));
  type W = { loaded?: boolean; Tessera: any; FingerprintJS: any };
  // `fn` in `pages` pages, one after the other, of one fresh context (one browser profile).
  const inFreshContext = async <T>(load: string, fn: (arg: { url: string; key: string; gets: number }) => Promise<T>, pages: number): Promise<T[]> => {
    const context = await browser.newContext();
    try {
      const out: T[] = [];
      for (let i = 0; i < pages; i++) {
        const page = await context.newPage();
        await page.goto(`${site.origin}/bench?load=${load}`);
        await page.waitForFunction(() => (window as unknown as W).loaded === true);
        out.push(await page.evaluate(fn, { url: svc.url, key: svc.keys.publicKey, gets: CACHED_GETS }));
        await page.close();
      }
      return out;
    } finally {
      await context.close();
    }
  };
  const inFreshPage = async <T>(load: string, fn: (arg: { url: string; key: string; gets: number }) => Promise<T>): Promise<T> =>
    (await inFreshContext(load, fn, 1))[0]!;

  const ours: number[] = [];
  const peer: number[] = [];
  // The next page of the same profile: the agent finds its visitor token and kept verdicts.
  const oursNext: number[] = [];
  const peerNext: number[] = [];
  const cached: number[] = [];
  const signalsPart: number[] = [];
  const requestPart: number[] = [];
  // Alternate the two so that machine noise hits both alike; the first pair warms up.
  for (let i = 0; i <= RUNS; i++) {
    const [t, tNext] = await inFreshContext('iife', timeFirstGet, 2);
    const [p, pNext] = await inFreshContext('peer', async () => {
      const t0 = performance.now();
      await (await (window as unknown as W).FingerprintJS.load({ monitoring: false })).get();
      return performance.now() - t0;
    }, 2);
    if (i > 0) {
      ours.push(t!.total);
      peer.push(p!);
      oursNext.push(tNext!.total);
      peerNext.push(pNext!);
      signalsPart.push(t!.signals);
      requestPart.push(t!.request);
    }
  }
  for (let i = 0; i < 3; i++)
    cached.push(
      await inFreshPage('iife', async ({ url, key, gets }) => {
        const agent = (window as unknown as W).Tessera.start({ apiKey: key, endpoints: url, cache: { storage: 'agent', duration: 60 } });
        await agent.get();
        const t0 = performance.now();
        for (let j = 0; j < gets; j++) await agent.get();
        return (performance.now() - t0) / gets;
      }),
    );

  // One warm-up page, as for the timed runs.
  const sourceCosts = await measureSourceCosts(browser, `${site.origin}/bench?load=none`, sourcesBundle, SOURCE_RUNS + 1);
  const perSource = Object.entries(sourceCosts)
    .map(([name, c]) => ({ name, sync: median(c.sync.slice(1)), value: median(c.value.slice(1)) }))
    .sort((a, b) => b.value - a.value);

  const leftOutNames = perSource.slice(0, LEFT_OUT_SOURCES).map((s) => s.name);
  // One warm-up round, as for the timed runs.
  const leftOut = await measureLeaveOneOut(browser, `${site.origin}/bench?load=none`, leaveOutBundle, { url: svc.url, publicKey: svc.keys.publicKey }, leftOutNames, LEAVE_OUT_RUNS + 1);
  // Each round times the whole agent and every variant one after the other: the saving of a
  // round is paired with its own whole-agent run, which takes the machine's drift out of it.
  const wholeRuns = leftOut.get(null)!;
  const leftOutFigures = [...leftOut].map(([name, t]) => {
    const saved = t.total.slice(1).map((total, i) => wholeRuns.total[i + 1]! - total);
    return { name, total: median(t.total.slice(1)), signals: median(t.signals.slice(1)), saved: median(saved), savedQ1: interpolated(saved, 0.25), savedQ3: interpolated(saved, 0.75) };
  });

  const ms = (n: number) => n.toFixed(n < 1 ? 3 : 1) + ' ms';
  const ms1 = (n: number) => n.toFixed(1) + ' ms';
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const costly = perSource.filter((s) => s.value >= CHEAP_MS);
  const cheap = perSource.filter((s) => s.value < CHEAP_MS);
  const figures = {
    runs: RUNS,
    tessera_start_get_median_ms: median(ours),
    peer_load_get_median_ms: median(peer),
    ratio: median(ours) / median(peer),
    tessera_start_get_min_ms: Math.min(...ours),
    peer_load_get_min_ms: Math.min(...peer),
    tessera_next_page_median_ms: median(oursNext),
    peer_next_page_median_ms: median(peerNext),
    tessera_cached_get_ms: median(cached),
    tessera_signals_median_ms: median(signalsPart),
    tessera_request_median_ms: median(requestPart),
    source_runs: SOURCE_RUNS,
    sources_main_thread_sum_ms: sum(perSource.map((s) => s.sync)),
    sources_value_sum_ms: sum(perSource.map((s) => s.value)),
    leave_out_runs: LEAVE_OUT_RUNS,
    leave_out: leftOutFigures,
  };
  const markdown = [
    `| measure (headless Chromium, ${RUNS} fresh contexts each) | median | best |`,
    '|---|---|---|',
    `| Tessera start() + first get(), against a local service | ${ms(figures.tessera_start_get_median_ms)} | ${ms(figures.tessera_start_get_min_ms)} |`,
    `| of which: signal collection until the request starts | ${ms(figures.tessera_signals_median_ms)} | |`,
    `| of which: the request to the service (identification included) | ${ms(figures.tessera_request_median_ms)} | |`,
    `| FingerprintJS (open source) load() + get(), same run | ${ms(figures.peer_load_get_median_ms)} | ${ms(figures.peer_load_get_min_ms)} |`,
    `| Tessera / peer | ${figures.ratio.toFixed(2)} (target at most 0.50) | ${(figures.tessera_start_get_min_ms / figures.peer_load_get_min_ms).toFixed(2)} |`,
    `| Tessera start() + get() on the next page of the same context (token and private-mode verdict kept) | ${ms(figures.tessera_next_page_median_ms)} | |`,
    `| FingerprintJS load() + get() on the next page of the same context | ${ms(figures.peer_next_page_median_ms)} | |`,
    `| Tessera / peer, next page | ${(figures.tessera_next_page_median_ms / figures.peer_next_page_median_ms).toFixed(2)} | |`,
    `| Tessera cached get() (agent memory, mean of ${CACHED_GETS}, median of 3 pages) | ${ms(figures.tessera_cached_get_ms)} (target under 1 ms) | |`,
    '',
    `Cost of each signal source, called alone and in \`SOURCES\` order in ${SOURCE_RUNS} fresh pages (median; a once-per-page cost falls on the first source that pays it):`,
    '',
    '| source | main thread | until its value |',
    '|---|---|---|',
    ...costly.map((s) => `| ${s.name} | ${ms1(s.sync)} | ${ms1(s.value)} |`),
    `| the other ${cheap.length} sources, together | ${ms1(sum(cheap.map((s) => s.sync)))} | ${ms1(sum(cheap.map((s) => s.value)))} |`,
    `| all ${perSource.length} sources, one after the other | ${ms1(figures.sources_main_thread_sum_ms)} | ${ms1(figures.sources_value_sum_ms)} |`,
    '',
    `What leaving each of the ${LEFT_OUT_SOURCES} costliest sources out of the whole agent saved on a fresh profile's first page (${LEAVE_OUT_RUNS} rounds, each timing the whole agent and every variant in fresh contexts one after the other; a bench-only unminified build whose collection can skip a source). "Saved" is the median of each round's whole agent less the variant, with the middle half of the rounds beside it: where that range holds 0 the source's cost is within the noise. Beside the others a source can cost more than alone (the two cores are shared by its worker, audio rendering and the browser's font and GPU processes) or less (its waits overlap):`,
    '',
    '| left out | start() + get(), median | of which signal collection | saved (middle half of the rounds) |',
    '|---|---|---|---|',
    ...leftOutFigures.map((m) =>
      m.name === null
        ? `| nothing (the whole agent) | ${ms1(m.total)} | ${ms1(m.signals)} | |`
        : `| ${m.name} | ${ms1(m.total)} | ${ms1(m.signals)} | ${ms1(m.saved)} (${ms1(m.savedQ1)} to ${ms1(m.savedQ3)}) |`,
    ),
    '',
    `Machine load average while measuring: ${loadavg()[0]!.toFixed(1)} (${cpus().length} cores); medians move a lot on a busy machine.`,
  ].join('\n');
  console.log(markdown);
  writeBenchOutput({ name: 'agent-speed', title: 'Agent speed', markdown, figures: { ...figures, ours, peer, ours_next_page: oursNext, peer_next_page: peerNext, cached, per_source: perSource } });
} finally {
  await browser.close();
  await site.close();
  await svc.close();
}
