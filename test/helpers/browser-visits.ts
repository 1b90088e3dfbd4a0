/**
 * Identification through the real service as browsers reach it behind a proxy: a service of
 * its own per test (what one test's browsers leave behind would be look-alikes of the next
 * one's), on an injected clock, trusting X-Forwarded-For, with its rate limit lifted; and one
 * visit of a browser from its own address.
 */
import { afterEach, beforeEach, expect } from 'vitest';
import type { Signals } from '../../src/protocol/index.js';
import { liftRateLimit } from '../server-api/fixtures.js';
import { identifyRequest, postIdentify } from './identify-request.js';
import { startTestService, type Engine, type TestService } from './test-service.js';

export interface VisitAnswer {
  visitor_id: string;
  visitor_found: boolean;
  token: string;
  confidence: { score: number; comment?: string };
}

/** Starts a service before each test and closes it after; the getter returns the current one. */
export function servicePerTest(engine: Engine, clock: () => number): () => TestService {
  let t: TestService | undefined;
  beforeEach(async () => {
    t = await startTestService({ engine, clock, config: { trustProxy: true } });
    await liftRateLimit(t);
  });
  afterEach(async () => {
    await t?.close();
  });
  return () => t!;
}

/** One identification call of a browser with `signals` from `ip`, `token` if its storage holds one. */
export async function browserVisit(t: TestService, signals: Signals, ip: string, token?: string): Promise<VisitAnswer> {
  const res = await postIdentify(t.url, identifyRequest(t.keys.publicKey, { signals, ...(token ? { token } : {}) }), { headers: { 'X-Forwarded-For': ip } });
  expect(res.status).toBe(200);
  return res.json as VisitAnswer;
}
