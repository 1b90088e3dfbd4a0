/**
 * Identification requests of a simulated population (bench/accuracy), in the wire format, for
 * the load benchmarks: every browser's non-private visits over 30 days, first visit apart.
 */
import { PROTOCOL_VERSION, type IdentifyRequest } from '../src/protocol/index.js';
import { VERSION as AGENT_VERSION } from '../src/agent/version.js';
import { generatePopulation } from './accuracy/population.js';
import { renderVisit, type RenderedVisit } from './accuracy/render-visit.js';
import { planBrowserVisits } from './accuracy/schedule.js';

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

/** `firstOnly`: each browser's first visit alone (its later ones are neither planned nor rendered). */
export function populationRequests(seed: string, browsers: number, publicKey: string, opts: { firstOnly?: boolean } = {}): PopulationRequest[] {
  const out: PopulationRequest[] = [];
  for (const browser of generatePopulation({ seed, browsers, days: DAYS }).browsers) {
    const planned = planBrowserVisits(seed, browser, DAYS).filter((v) => !v.private);
    const visits = opts.firstOnly ? planned.slice(0, 1) : planned;
    visits.forEach((visit, i) => {
      const rendered = renderVisit(seed, browser, visit);
      const request: IdentifyRequest = {
        v: PROTOCOL_VERSION,
        api_key: publicKey,
        url: rendered.url,
        sdk: { platform: 'js', version: AGENT_VERSION },
        signals: rendered.signals,
        ...(rendered.signalErrors ? { signal_errors: rendered.signalErrors } : {}),
      };
      out.push({ browser: browser.index, request, rendered, first: i === 0 });
    });
  }
  return out;
}
