/**
 * The identification requests the load benchmarks send, as browsers send them: every simulated
 * browser (population-requests.ts) from its own address, its first visit once (warm-up), then
 * its later visits, each carrying the newest token its browser was given. The load generators
 * run in child processes (their own event loop, so they do not queue behind the service):
 * they get the requests through a file and the source below that keeps each browser's token.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IdentifyResponse } from '../src/protocol/index.js';
import { Rng } from './accuracy/prng.js';
import { populationRequests } from './population-requests.js';

/**
 * A request of one browser: its body without the closing brace (the browser's current token,
 * if it has one, goes there when the request is sent) and its headers.
 */
export interface BrowserRequest {
  browser: number;
  head: string;
  token?: string;
  headers: Record<string, string>;
}

/** The request body a browser request stands for, with `token` (or none). */
export const bodyOf = (head: string, token: string | undefined) => (token ? `${head},"token":${JSON.stringify(token)}}` : `${head}}`);

/** First visits and later visits of a simulated population; `origin` adds the page's Origin header. */
export function browserRequests(seed: string, browsers: number, publicKey: string, opts: { origin?: boolean } = {}): { first: BrowserRequest[]; later: BrowserRequest[] } {
  const first: BrowserRequest[] = [];
  const later: BrowserRequest[] = [];
  for (const { browser, request, rendered, first: isFirst } of populationRequests(seed, browsers, publicKey)) {
    const headers: Record<string, string> = {
      'content-type': 'text/plain',
      'x-forwarded-for': rendered.ip,
      'user-agent': rendered.userAgentHeader,
      'accept-language': rendered.acceptLanguage,
    };
    if (opts.origin) headers.origin = new URL(rendered.url).origin;
    (isFirst ? first : later).push({ browser, head: JSON.stringify(request).slice(0, -1), headers });
  }
  return { first, later: spreadOut(seed, later) };
}

/**
 * The later visits in the order the load generators send them: each browser's visits spread
 * evenly over the list (in their own order), at an offset of its own. A browser's visits are
 * hours or days apart, so its identifications should not be in flight together. In the
 * population's order (browser by browser) a browser's visits followed one another: with 50
 * connections, every visit of the service benchmark's browsers after the first was sent while
 * the browser's previous one could still be in flight (on PostgreSQL it then waited for that
 * one's lock on the visitor's row). A browser with n visits in a list of L comes back every L / n requests: at
 * least 61 requests apart in every load here (25 to 50 connections), by when its previous one
 * has nearly always been answered (only one slower than the next 60 requests still isn't).
 */
function spreadOut(seed: string, visits: BrowserRequest[]): BrowserRequest[] {
  const perBrowser = new Map<number, BrowserRequest[]>();
  for (const v of visits) {
    const own = perBrowser.get(v.browser);
    if (own) own.push(v);
    else perBrowser.set(v.browser, [v]);
  }
  const placed: { at: number; visit: BrowserRequest }[] = [];
  for (const [browser, own] of perBrowser) {
    const offset = new Rng(seed, 'load-order', browser).next();
    own.forEach((visit, k) => placed.push({ at: (k + offset) / own.length, visit }));
  }
  return placed.sort((a, b) => a.at - b.at || a.visit.browser - b.visit.browser).map((p) => p.visit);
}

/**
 * Warm-up: every browser's first visit (25 at a time), to create its visitor and get its token;
 * returns the later visits with the token each browser got. Browsers without a (non-private)
 * first visit have no token: they are identified without.
 */
export async function sendFirstVisits(endpoint: string, { first, later }: { first: BrowserRequest[]; later: BrowserRequest[] }): Promise<BrowserRequest[]> {
  const tokens = new Map<number, string>();
  for (let i = 0; i < first.length; i += 25) {
    await Promise.all(
      first.slice(i, i + 25).map(async (p) => {
        const res = await fetch(endpoint, { method: 'POST', headers: p.headers, body: bodyOf(p.head, undefined) });
        if (!res.ok) throw new Error(`a warm-up identification was refused: ${res.status} ${await res.text()}`);
        tokens.set(p.browser, ((await res.json()) as IdentifyResponse).token);
      }),
    );
  }
  return later.map((p) => ({ ...p, token: tokens.get(p.browser) }));
}

/** Writes the requests to a temporary file for a load generator; `remove` deletes it. */
export function writeRequestsFile(requests: BrowserRequest[]): { file: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-bench-'));
  const file = join(dir, 'requests.json');
  writeFileSync(file, JSON.stringify(requests));
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * JavaScript source for a load generator's child process, given `payloads` (BrowserRequest[]):
 * `nextRequest()` cycles through them and returns `{ p, body }` with the browser's newest token;
 * `keepToken(browser, status, body)` records the token of an answer, as the agent keeps it.
 */
export const TOKEN_KEEPING_SOURCE = `
  const tokens = new Map();
  let next = 0;
  const nextRequest = () => {
    const p = payloads[next++ % payloads.length];
    const token = tokens.get(p.browser) ?? p.token;
    return { p, body: token ? p.head + ',"token":' + JSON.stringify(token) + '}' : p.head + '}' };
  };
  const keepToken = (browser, status, body) => {
    if (status !== 200) return;
    const token = JSON.parse(body).token;
    if (token) tokens.set(browser, token);
  };
`;

/**
 * JavaScript source of autocannon's \`requests\` option (after TOKEN_KEEPING_SOURCE): each
 * connection sends the next browser's request and keeps the token of its answer (a connection
 * has one request in flight, so the answer belongs to that browser).
 */
export const AUTOCANNON_REQUESTS_SOURCE = `[{
  setupRequest: (req, context) => {
    const { p, body } = nextRequest();
    context.browser = p.browser;
    return { ...req, method: 'POST', body, headers: { ...req.headers, ...p.headers } };
  },
  onResponse: (status, body, context) => keepToken(context.browser, status, body),
}]`;
