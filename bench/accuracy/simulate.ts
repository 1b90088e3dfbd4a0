/**
 * Runs a simulated population through the real service over HTTP: the service runs in this
 * process with an injected clock that follows the simulated time, every visit is a
 * `POST /` with the agent's IdentifyRequest, the client address in X-Forwarded-For and the
 * browser's User-Agent / Accept-Language headers. Visits go out in time order with bounded
 * concurrency; one browser's visits are never concurrent. Like the agent, the simulation keeps
 * the token the service returns per storage jar and sends it back while the jar lives.
 * With `visitorCookie`, the service runs with --visitor-cookie (the agent posting to the site's
 * own origin) and the browser also keeps the cookie the service sets, per cookie jar
 * (schedule.ts), sending it back while that jar lives; the cookie-only baseline and the limits
 * then follow the cookie jar, as a site's own cookie would.
 * The two baselines are computed on the very same rendered visits.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { PROTOCOL_VERSION, type IdentifyRequest, type IdentifyResponse } from '../../src/protocol/index.js';
import { createService } from '../../src/service/index.js';
import { findApiKeyByToken, setApiKeyRateLimit } from '../../src/service/store/api-keys.js';
import { kyselyOf } from '../../src/service/store/index.js';
import type { Database } from '../../src/service/store/schema.js';
import { networkPrefix } from '../../src/service/identification/network.js';
import { VISITOR_COOKIE_NAME } from '../../src/service/ingestion/visitor-cookie.js';
import { visitorCookieSet } from '../../test/helpers/identify-request.js';
import { attainableVisitorIds, comparableSignalIds, cookieOnlyVisitorId, exactHashVisitorId, oracleVisitorIds, type AttainableVisit } from './baselines.js';
import type { VisitCondition } from './metrics.js';
import { generatePopulation, type Population } from './population.js';
import { SIM_START_MS } from './release-calendar.js';
import { renderVisit } from './render-visit.js';
import { planAllVisits } from './schedule.js';

export interface SimulationOptions {
  seed: string;
  browsers: number;
  days: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** Called now and then with (visits done, visits total). */
  onProgress?: (done: number, total: number) => void;
  /** The service keeps the token in its cookie too (--visitor-cookie), and browsers keep that cookie. */
  visitorCookie?: boolean;
  /** Reads the service's database after the last visit, before it is removed (fit-id-origin.ts). */
  inspect?: (db: Kysely<Database>) => Promise<void>;
}

/** One visit as sent, with what each method answered. */
export interface VisitRecord {
  browser: number;
  t: number;
  condition: VisitCondition;
  network: string;
  serviceId: string | null;
  score: number | undefined;
  /** Error code when the service refused or failed the request. */
  error: string | null;
  exactId: string;
  cookieId: string;
  /** The distinguishability limit's answer (oracleVisitorIds). */
  oracleId: string;
  /** The attainable limit's answer (attainableVisitorIds). */
  attainableId: string;
  /**
   * The service moved this storage's ID back to an earlier one (relinking): its answer's
   * `confidence.comment` says `relinked: ...`.
   */
  relinked?: boolean;
}

export interface SimulationResult {
  population: Population;
  records: VisitRecord[];
  wallSeconds: number;
  errors: Record<string, number>;
}

const SDK_VERSION = '0.1.0';

export async function runSimulation(options: SimulationOptions): Promise<SimulationResult> {
  const population = generatePopulation({ seed: options.seed, browsers: options.browsers, days: options.days });
  const plan = planAllVisits(options.seed, population.browsers, options.days);
  const dataDir = mkdtempSync(join(tmpdir(), 'tessera-accuracy-'));
  // An interrupted run (Ctrl-C, run-all's time limit) must not leave its database behind.
  const removeDataAndExit = () => {
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(130);
  };
  process.once('SIGINT', removeDataAndExit);
  process.once('SIGTERM', removeDataAndExit);
  let simNow = SIM_START_MS;
  const visitorCookie = options.visitorCookie ?? false;
  const service = await createService({ clock: () => simNow, trustProxy: true, port: 0, logLevel: 'silent', dataDir, visitorCookie });
  const started = Date.now();
  try {
    // The simulation sends far more requests per wall-clock second than one site would.
    const key = await findApiKeyByToken(service.ctx.store, service.bootstrap.publicKey);
    if (!key) throw new Error('bootstrap public key not found');
    await setApiKeyRateLimit(service.ctx.store, key.id, 1_000_000);
    const base = await service.listen();
    const endpoint = `${base}/?ci=js/${SDK_VERSION}`;

    const tokens = new Map<string, string>();
    /** The service's cookie per cookie jar (visitorCookie). */
    const cookies = new Map<string, string>();
    const seenBrowser = new Set<number>();
    const chains = new Map<number, Promise<void>>();
    const records: VisitRecord[] = new Array(plan.length);
    const limitInputs: AttainableVisit[] = new Array(plan.length);
    const errors: Record<string, number> = {};
    let inFlight = 0;
    let done = 0;
    let wake: (() => void) | null = null;

    const send = async (i: number): Promise<void> => {
      const visit = plan[i]!;
      const browser = population.browsers[visit.browser]!;
      const rendered = renderVisit(options.seed, browser, visit);
      const token = tokens.get(visit.jar);
      const cookie = visitorCookie ? cookies.get(visit.cookieJar) : undefined;
      // The jar whose loss a cookie-based ID suffers: the site's own cookie outlives script storage.
      const storageJar = visitorCookie ? visit.cookieJar : visit.jar;
      const condition: VisitCondition = !seenBrowser.has(visit.browser) ? 'first-visit'
        : visit.private ? 'private' : token || cookie ? 'with-token' : 'storage-lost';
      seenBrowser.add(visit.browser);
      const request: IdentifyRequest = {
        v: PROTOCOL_VERSION,
        api_key: service.bootstrap.publicKey,
        url: rendered.url,
        sdk: { platform: 'js', version: SDK_VERSION },
        signals: rendered.signals,
        ...(token ? { token } : {}),
        ...(rendered.signalErrors ? { signal_errors: rendered.signalErrors } : {}),
      };
      simNow = Math.max(simNow, visit.t);
      let serviceId: string | null = null;
      let score: number | undefined;
      let relinked = false;
      let error: string | null = null;
      try {
        const res = await fetch(endpoint, {
          method: 'POST',
          headers: {
            'content-type': 'text/plain',
            'x-forwarded-for': rendered.ip,
            'user-agent': rendered.userAgentHeader,
            'accept-language': rendered.acceptLanguage,
            // The agent posts to the page's own origin: browsers mark that, and keep the cookie.
            ...(visitorCookie ? { 'sec-fetch-site': 'same-origin' } : {}),
            ...(cookie ? { cookie: `${VISITOR_COOKIE_NAME}=${cookie}` } : {}),
          },
          body: JSON.stringify(request),
        });
        const body = (await res.json()) as IdentifyResponse & { error?: { code: string } };
        if (res.ok && body.visitor_id) {
          serviceId = body.visitor_id;
          score = body.confidence?.score;
          relinked = body.confidence?.comment?.startsWith('relinked:') ?? false;
          tokens.set(visit.jar, body.token);
          if (visitorCookie) {
            // What the browser keeps is what the service's Set-Cookie says.
            const value = visitorCookieSet(res.headers)?.value;
            if (!value) throw new Error('the service set no visitor cookie');
            cookies.set(visit.cookieJar, value);
          }
        } else {
          error = body.error?.code ?? `http_${res.status}`;
        }
      } catch (err) {
        error = `network: ${(err as Error).message}`;
      }
      if (error) errors[error] = (errors[error] ?? 0) + 1;
      records[i] = {
        browser: visit.browser, t: visit.t, condition, network: rendered.network, serviceId, score, error,
        exactId: exactHashVisitorId(rendered.signals), cookieId: cookieOnlyVisitorId(storageJar), oracleId: '', attainableId: '',
        ...(relinked ? { relinked } : {}),
      };
      limitInputs[i] = {
        browser: visit.browser, t: visit.t, jar: storageJar, exactId: records[i].exactId, network: networkPrefix(rendered.ip),
        signalIds: comparableSignalIds(rendered.signals), noisy: rendered.noisy,
      };
    };

    for (let i = 0; i < plan.length; i++) {
      while (inFlight >= options.concurrency) await new Promise<void>((resolve) => (wake = resolve));
      inFlight++;
      const b = plan[i]!.browser;
      const next = (chains.get(b) ?? Promise.resolve()).then(() => send(i)).finally(() => {
        inFlight--;
        done++;
        if (options.onProgress && done % 5000 === 0) options.onProgress(done, plan.length);
        const w = wake;
        wake = null;
        w?.();
      });
      chains.set(b, next);
    }
    await Promise.all(chains.values());
    await options.inspect?.(kyselyOf(service.ctx.store));
    // The plan is in time order, so the limits see the visits as they happened.
    oracleVisitorIds(limitInputs).forEach((id, i) => (records[i]!.oracleId = id));
    attainableVisitorIds(limitInputs).forEach((id, i) => (records[i]!.attainableId = id));
    return { population, records, wallSeconds: (Date.now() - started) / 1000, errors };
  } finally {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
    process.off('SIGINT', removeDataAndExit);
    process.off('SIGTERM', removeDataAndExit);
  }
}
