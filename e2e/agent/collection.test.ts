/**
 * The collector's scheduling in real Chromium (sources started in order, time slices with a
 * yielded task between them) must not change what identification receives: the signals of two
 * fresh pages are identical and complete, and equal to the values the sources give when each
 * is called alone, one after the other, with nothing else running.
 */
import type { Browser } from 'playwright-core';
import { beforeAll, expect, test } from 'vitest';
import type { IdentifyRequest } from '../../src/protocol/index.js';
import { SOURCES } from '../../src/agent/signals/index.js';
import type { TestService } from '../../test/helpers/test-service.js';
import { get, ok, recordRequests, startAgent } from './helpers/agent-page.js';
import { useAgentSuite } from './helpers/agent-suite.js';
import type { PageServer } from './helpers/page-server.js';
import { buildSourcesBundle, type SourcesGlobal } from './helpers/sources-bundle.js';

let svc: TestService;
let site: PageServer;
let browser: Browser;
let sourcesBundle: string;

useAgentSuite((suite) => ({ svc, site, browser } = suite));
beforeAll(async () => {
  sourcesBundle = await buildSourcesBundle();
});

// Headless Chromium on Linux lacks only these features (as in signals.test.ts).
const UNSUPPORTED = ['inverted_colors', 'device_memory'];

/**
 * Signals with the private-mode verdict reduced to its method. The verdict (`likely`) in
 * Chromium comes from timing flushes of the private file system (signals/incognito.ts): under
 * heavy load an in-memory flush can measure as long as a disk's, and one fresh context in
 * several CI runs was judged not private. It is a heuristic, not a value the collector's
 * scheduling could change; signals.test.ts checks it in each mode.
 */
function withoutVerdict(signals: Record<string, unknown>) {
  const incognito = signals.incognito as { method?: string } | undefined;
  return { ...signals, incognito: incognito && { method: incognito.method } };
}

/** The first request's signals and errors from a fresh context's start() + get(). */
async function agentRun(): Promise<Pick<IdentifyRequest, 'signals' | 'signal_errors'>> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${site.origin}/collection`);
    const sent = recordRequests(page);
    await startAgent(page, { apiKey: svc.keys.publicKey, endpoints: svc.url });
    ok(await get(page));
    return { signals: sent[0]!.signals, signal_errors: sent[0]!.signal_errors ?? {} };
  } finally {
    await context.close();
  }
}

test('two fresh pages send identical signals, every source present or known unsupported', async () => {
  const first = await agentRun();
  const second = await agentRun();
  for (const name of Object.keys(SOURCES)) expect(name in first.signals || UNSUPPORTED.includes(name), name).toBe(true);
  expect(Object.keys(first.signal_errors!).filter((k) => !UNSUPPORTED.includes(k))).toEqual([]);
  expect(first.signals.incognito).toMatchObject({ method: 'opfs_flush' });
  expect({ ...second, signals: withoutVerdict(second.signals) }).toEqual({ ...first, signals: withoutVerdict(first.signals) });
});

test('the agent sends exactly what the sources give when called alone, one after the other', async () => {
  const context = await browser.newContext();
  let alone: Record<string, unknown>;
  try {
    const page = await context.newPage();
    await page.goto(`${site.origin}/collection?load=none`);
    await page.addScriptTag({ content: sourcesBundle });
    alone = await page.evaluate(async () => {
      const out: Record<string, unknown> = {};
      for (const [name, source] of Object.entries((window as unknown as SourcesGlobal).TesseraSources.SOURCES)) {
        const value = await source();
        if (value !== undefined && value !== null) out[name] = value;
      }
      return out;
    });
  } finally {
    await context.close();
  }
  // JSON, as the request carries them.
  expect(withoutVerdict((await agentRun()).signals)).toEqual(withoutVerdict(JSON.parse(JSON.stringify(alone))));
});
