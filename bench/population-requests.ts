/**
 * Identification requests of a simulated population (bench/accuracy), in the wire format, for
 * the load benchmarks: every browser's non-private visits over 30 days, first visit apart.
 */
import { PROTOCOL_VERSION, type IdentifyRequest } from '../src/protocol/index.js';
import { VERSION as AGENT_VERSION } from '../src/agent/version.js';
import { generatePopulation, type SimBrowser } from './accuracy/population.js';
import { renderVisit, type RenderedVisit } from './accuracy/render-visit.js';
import { planBrowserVisits, type PlannedVisit } from './accuracy/schedule.js';

export interface PopulationRequest {
  /** The simulated browser's index. */
  browser: number;
  request: IdentifyRequest;
  /** IP, User-Agent and Accept-Language headers and URL the browser sends with it. */
  rendered: RenderedVisit;
  /** Whether it is the browser's first visit. */
  first: boolean;
}

const DAYS = 30;

export function populationRequests(seed: string, browsers: number, publicKey: string): PopulationRequest[] {
  const out: PopulationRequest[] = [];
  for (const browser of generatePopulation({ seed, browsers, days: DAYS }).browsers) {
    planBrowserVisits(seed, browser, DAYS)
      .filter((v) => !v.private)
      .forEach((visit, i) => out.push(requestOf(seed, browser, visit, publicKey, i === 0)));
  }
  return out;
}

/**
 * The first visits of `count` browsers of population `seed`, rendered one at a time as they are
 * taken (a hundred thousand rendered at once hold about 270 MB). A few browsers only ever visit
 * in private windows, which the load benchmarks leave out: a slightly larger population is drawn.
 */
export function* firstVisitRequests(seed: string, count: number, publicKey: string): Generator<PopulationRequest> {
  for (let browsers = Math.ceil(count * 1.05) + 10; ; browsers = Math.ceil(browsers * 1.1)) {
    const firsts: { browser: SimBrowser; visit: PlannedVisit }[] = [];
    for (const browser of generatePopulation({ seed, browsers, days: DAYS }).browsers) {
      const visit = planBrowserVisits(seed, browser, DAYS).find((v) => !v.private);
      if (visit) firsts.push({ browser, visit });
    }
    if (firsts.length < count) continue;
    for (const { browser, visit } of firsts.slice(0, count)) yield requestOf(seed, browser, visit, publicKey, true);
    return;
  }
}

function requestOf(seed: string, browser: SimBrowser, visit: PlannedVisit, publicKey: string, first: boolean): PopulationRequest {
  const rendered = renderVisit(seed, browser, visit);
  const request: IdentifyRequest = {
    v: PROTOCOL_VERSION,
    api_key: publicKey,
    url: rendered.url,
    sdk: { platform: 'js', version: AGENT_VERSION },
    signals: rendered.signals,
    ...(rendered.signalErrors ? { signal_errors: rendered.signalErrors } : {}),
  };
  return { browser: browser.index, request, rendered, first };
}
