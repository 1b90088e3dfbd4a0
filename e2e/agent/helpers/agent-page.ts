/** Drives the agent inside a Playwright page: start(), get(), and what the page sent. */
import type { Page } from 'playwright-core';
import type { IdentifyRequest } from '../../../src/protocol/index.js';

/** Plain-JSON view of a GetResult (sealed_result becomes its base64), or the AgentError's fields. */
export type Outcome =
  | { ok: true; event_id: string; visitor_id: string; visitor_found: boolean; cache_hit?: boolean; sealed_result: string | null }
  | { ok: false; code: string; message: string; event_id: string | null; isAgentError: boolean };

interface PageGlobals {
  loaded?: boolean;
  agent: { get(o: unknown): Promise<Record<string, unknown>> };
  Tessera: { start(o: unknown): PageGlobals['agent']; withoutDefault(v: unknown): unknown; isAgentError(e: unknown): boolean };
}

/**
 * `window.agent = Tessera.start(startOptions)` in the page, once the page has loaded the agent.
 * withoutDefault wraps the endpoints when asked (functions cannot cross into the page).
 */
export async function startAgent(page: Page, startOptions: Record<string, unknown>, opts: { withoutDefault?: boolean } = {}) {
  await page.waitForFunction(() => (window as unknown as PageGlobals).loaded === true);
  await page.evaluate(
    ({ startOptions, opts }) => {
      const w = window as unknown as PageGlobals;
      const T = w.Tessera;
      w.agent = T.start(opts.withoutDefault ? { ...startOptions, endpoints: T.withoutDefault(startOptions.endpoints) } : startOptions);
    },
    { startOptions, opts },
  );
}

/** `await window.agent.get(getOptions)`, as an Outcome. */
export const get = (page: Page, getOptions: Record<string, unknown> = {}): Promise<Outcome> =>
  page.evaluate(async (getOptions) => {
    const w = window as unknown as PageGlobals;
    try {
      return { ok: true as const, ...JSON.parse(JSON.stringify(await w.agent.get(getOptions))) };
    } catch (e) {
      const err = e as { code: string; message: string; event_id: string | null };
      return { ok: false as const, code: err.code, message: err.message, event_id: err.event_id, isAgentError: w.Tessera.isAgentError(e) };
    }
  }, getOptions);

/** startAgent then `gets` calls of get(). */
export async function startAndGet(
  page: Page,
  startOptions: Record<string, unknown>,
  getOptions: Record<string, unknown> = {},
  opts: { withoutDefault?: boolean; gets?: number } = {},
): Promise<Outcome[]> {
  await startAgent(page, startOptions, opts);
  const out: Outcome[] = [];
  for (let i = 0; i < (opts.gets ?? 1); i++) out.push(await get(page, getOptions));
  return out;
}

/** The result's fields, failing the test on an error outcome. */
export function ok(o: Outcome | undefined) {
  if (!o?.ok) throw new Error(`expected a result, got ${JSON.stringify(o)}`);
  return o;
}

/** Records the bodies of the identification requests the page sends (to any endpoint). */
export function recordRequests(page: Page): IdentifyRequest[] {
  const bodies: IdentifyRequest[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().includes('ci=js/')) bodies.push(JSON.parse(r.postData() ?? '{}'));
  });
  return bodies;
}
