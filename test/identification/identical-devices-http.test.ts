/**
 * Identical devices arriving one after another, through the real service over HTTP on both
 * engines: the machines of one corporate image make their first visits from the office's
 * address minutes apart. Nothing tells the second from the first browser after a storage loss,
 * but a visitor ID that keeps taking storages without a token is a cluster, not one browser:
 * the office does not collapse into one ID.
 */
import { describe, expect, it } from 'vitest';
import type { Signals } from '../../src/protocol/index.js';
import { MATCH } from '../../src/service/identification/matcher.js';
import { browserVisit, servicePerTest } from '../helpers/browser-visits.js';
import { ENGINES } from '../helpers/test-service.js';
import { windowsChrome } from './fixtures.js';

const MINUTE = 60 * 1000;

describe.each(ENGINES)('identical devices over HTTP (%s)', (engine) => {
  let now = Date.UTC(2026, 0, 12, 9);
  const service = servicePerTest(engine, () => now);
  const visit = (signals: Signals, ip: string, token?: string) => browserVisit(service(), signals, ip, token);

  it('spreads the first visits of one image over several IDs, each machine keeping its own with its token', async () => {
    const image: Signals = { ...windowsChrome(), fonts: [...windowsChrome().fonts!, 'Corporate Sans'].sort() };
    const office = '192.0.2.10';
    const machines = 10;
    const first: { visitor_id: string; token: string }[] = [];
    for (let m = 0; m < machines; m++) {
      now += 5 * MINUTE;
      first.push(await visit(image, office));
    }
    const perId = new Map<string, number>();
    for (const f of first) perId.set(f.visitor_id, (perId.get(f.visitor_id) ?? 0) + 1);
    // Before the rule, every machine of the image got the first one's ID.
    expect(Math.max(...perId.values())).toBeLessThanOrEqual(MATCH.burstJars);
    expect(perId.size).toBeGreaterThan(1);
    // Each machine's token still names the ID it was given.
    for (const f of first) {
      now += MINUTE;
      expect((await visit(image, office, f.token)).visitor_id).toBe(f.visitor_id);
    }
  });
});
