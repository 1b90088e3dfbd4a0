/** Drives the agent inside a Playwright page: start() + get() and what the page sent. */
import type { Page } from 'playwright-core';
import type { IdentifyRequest } from '../../../src/protocol/index.js';

/** Plain-JSON view of a GetResult (sealed_result becomes its base64), or the AgentError's fields. */
export type Outcome =
  | { ok: true; event_id: string; visitor_id: string; visitor_found: boolean; cache_hit?: boolean; sealed_result: string | null }
  | { ok: false; code: string; message: string; event_id: string | null; isAgentError: boolean };

/**
 * Runs `Tessera.start(startOptions).get(getOptions)` in the page. `withoutDefault` wraps the
 * endpoints when asked (functions cannot cross into the page, so the flag does).
 */
export async function startAndGet(
  page: Page,
  startOptions: Record<string, unknown>,
  getOptions: Record<string, unknown> = {},
  opts: { withoutDefault?: boolean; gets?: number } = {},
): Promise<Outcome[]> {
  await page.waitForFunction(() => (window as unknown as { loaded?: boolean }).loaded === true);
  return page.evaluate(
    async ({ startOptions, getOptions, opts }) => {
      type T = {
        start(o: unknown): { get(o: unknown): Promise<Record<string, unknown>> };
        withoutDefault(v: unknown): unknown;
        isAgentError(e: unknown): boolean;
      };
      const T = (window as unknown as { Tessera: T }).Tessera;
      const options = opts.withoutDefault ? { ...startOptions, endpoints: T.withoutDefault(startOptions.endpoints) } : startOptions;
      const agent = T.start(options);
      const out = [];
      for (let i = 0; i < (opts.gets ?? 1); i++) {
        try {
          out.push({ ok: true, ...JSON.parse(JSON.stringify(await agent.get(getOptions))) });
        } catch (e) {
          const err = e as { code: string; message: string; event_id: string | null };
          out.push({ ok: false, code: err.code, message: err.message, event_id: err.event_id, isAgentError: T.isAgentError(e) });
        }
      }
      return out;
    },
    { startOptions, getOptions, opts },
  );
}

/** Records the bodies of the identification requests the page sends (to any endpoint). */
export function recordRequests(page: Page): IdentifyRequest[] {
  const bodies: IdentifyRequest[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().includes('ci=js/')) bodies.push(JSON.parse(r.postData() ?? '{}'));
  });
  return bodies;
}
