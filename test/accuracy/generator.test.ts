import { describe, expect, it } from 'vitest';
import { exactHashVisitorId, canonicalJson } from '../../bench/accuracy/baselines.js';
import { generatePopulation, type SimBrowser } from '../../bench/accuracy/population.js';
import { Rng } from '../../bench/accuracy/prng.js';
import { DAY_MS, SIM_START_MS } from '../../bench/accuracy/release-calendar.js';
import { renderVisit } from '../../bench/accuracy/render-visit.js';
import { planAllVisits, planBrowserVisits, type PlannedVisit } from '../../bench/accuracy/schedule.js';

const SEED = 'unit-test';
const population = generatePopulation({ seed: SEED, browsers: 3000, days: 90 });
const visitsOf = (b: SimBrowser) => planBrowserVisits(SEED, b, 90);

describe('seeded generator', () => {
  it('Rng streams are reproducible and depend on their name', () => {
    const a = new Rng('s', 'x', 1);
    const b = new Rng('s', 'x', 1);
    const c = new Rng('s', 'x', 2);
    const seqA = Array.from({ length: 5 }, () => a.nextUint32());
    expect(Array.from({ length: 5 }, () => b.nextUint32())).toEqual(seqA);
    expect(Array.from({ length: 5 }, () => c.nextUint32())).not.toEqual(seqA);
  });

  it('Rng draws follow their distributions', () => {
    const r = new Rng('dist');
    let sum = 0;
    let heads = 0;
    let expSum = 0;
    const n = 20000;
    for (let i = 0; i < n; i++) {
      sum += r.next();
      if (r.weighted([['h', 3], ['t', 1]]) === 'h') heads++;
      expSum += r.exponential(5);
    }
    expect(sum / n).toBeGreaterThan(0.48);
    expect(sum / n).toBeLessThan(0.52);
    expect(heads / n).toBeGreaterThan(0.73);
    expect(heads / n).toBeLessThan(0.77);
    expect(expSum / n).toBeGreaterThan(4.8);
    expect(expSum / n).toBeLessThan(5.2);
  });

  it('the same seed gives the same population and visits; another seed does not', () => {
    const again = generatePopulation({ seed: SEED, browsers: 3000, days: 90 });
    expect(again.browsers.length).toBe(3000);
    const summary = (p: typeof population) => p.browsers.slice(0, 50).map((b) => `${b.kind}/${b.device.os}/${b.device.hardware.gpu.model}/${b.clearing}`);
    expect(summary(again)).toEqual(summary(population));
    const other = generatePopulation({ seed: 'another', browsers: 3000, days: 90 });
    expect(summary(other)).not.toEqual(summary(population));
    const b = population.browsers[7] as SimBrowser;
    const v = visitsOf(b)[0] as PlannedVisit;
    expect(canonicalJson(renderVisit(SEED, b, v))).toBe(canonicalJson(renderVisit(SEED, again.browsers[7] as SimBrowser, visitsOf(again.browsers[7] as SimBrowser)[0] as PlannedVisit)));
  });

  it('machines of one office image render identical signals at the same moment', () => {
    const office = population.offices.find((o) => population.browsers.filter((b) => b.device.managedBy === o && b.device.cls !== 'phone').length >= 3);
    expect(office).toBeDefined();
    const machines = population.browsers.filter((b) => b.device.managedBy === office && b.device.cls !== 'phone' && b.kind === office?.browser);
    const t = machines.map((b) => visitsOf(b)[0]?.t ?? 0).reduce((a, c) => Math.max(a, c), 0);
    const hashes = new Set(machines.map((b) => exactHashVisitorId(renderVisit(SEED, b, { browser: b.index, t, session: 0, sessionStart: t, private: false, jar: 'x', cookieJar: 'x' }).signals)));
    expect(hashes.size).toBe(1);
  });

  it("an office that starts using the site on one morning: its work browsers' first visits fall between 9:00 and 9:30 local time that day", () => {
    const launched = population.offices.filter((o) => o.launchDay !== null);
    expect(launched.length).toBeGreaterThan(0);
    expect(launched.length).toBeLessThan(population.offices.length);
    let onLaunchDay = 0;
    let work = 0;
    for (const office of launched) {
      for (const b of population.browsers.filter((x) => x.work && x.device.managedBy === office)) {
        expect(b.cohorts).toContain('office-launch');
        const first = visitsOf(b)[0];
        if (!first) continue;
        work++;
        const localMs = first.t - SIM_START_MS - office.tz.offset * 60_000;
        // Someone away on a trip that day comes in on a later day, at any hour.
        if (Math.floor(localMs / DAY_MS) !== office.launchDay) continue;
        onLaunchDay++;
        const hour = (localMs % DAY_MS) / 3_600_000;
        expect(hour).toBeGreaterThanOrEqual(9);
        expect(hour).toBeLessThan(9.5);
      }
    }
    expect(onLaunchDay / work).toBeGreaterThan(0.8);
  });

  it('different browsers on one device are told apart by their user agent', () => {
    const device = population.devices.find((d) => population.browsers.filter((b) => b.device === d).length >= 2);
    const [first, second] = population.browsers.filter((b) => b.device === device) as [SimBrowser, SimBrowser];
    const t = visitsOf(first)[0]?.t ?? 0;
    const render = (b: SimBrowser) => renderVisit(SEED, b, { browser: b.index, t, session: 0, sessionStart: t, private: false, jar: 'x', cookieJar: 'x' }).signals;
    expect(render(first).user_agent).not.toBe(render(second).user_agent);
    expect(render(first).screen?.width).toBe(render(second).screen?.width);
  });

  it('browsers upgrade over the simulated months', () => {
    const chrome = population.browsers.find((b) => b.kind === 'chrome' && b.device.os === 'windows' && !b.oneTime && visitsOf(b).length > 10) as SimBrowser;
    const visits = visitsOf(chrome);
    const uas = new Set(visits.map((v) => renderVisit(SEED, chrome, v).signals.user_agent));
    expect(uas.size).toBeGreaterThan(1);
  });

  it('storage jars: kept while nothing happens, replaced by clearing, one per private session, expired by WebKit after 7 idle days', () => {
    const keeper = population.browsers.find((b) => b.engine === 'blink' && b.clearing === 'never' && b.clearsBetweenPageViews === 0 && b.reinstallDay === null && b.privateShare === 0 && visitsOf(b).length > 5) as SimBrowser;
    expect(new Set(visitsOf(keeper).map((v) => v.jar)).size).toBe(1);

    const clearer = population.browsers.find((b) => b.engine === 'blink' && b.clearing === 'frequent' && b.privateShare === 0 && visitsOf(b).length > 10) as SimBrowser;
    expect(new Set(visitsOf(clearer).map((v) => v.jar)).size).toBeGreaterThan(1);

    const privateUser = population.browsers.find((b) => b.privateShare > 0 && visitsOf(b).some((v) => v.private)) as SimBrowser;
    for (const v of visitsOf(privateUser).filter((x) => x.private)) expect(v.jar).toBe(`${privateUser.index}:p${v.session}`);

    const webkit = population.browsers.filter((b) => b.engine === 'webkit' && b.clearing === 'never' && b.clearsBetweenPageViews === 0 && b.reinstallDay === null && b.privateShare === 0);
    let checked = 0;
    for (const b of webkit) {
      const vs = visitsOf(b);
      for (let i = 1; i < vs.length; i++) {
        const prev = vs[i - 1] as PlannedVisit;
        const cur = vs[i] as PlannedVisit;
        if (cur.session === prev.session) continue;
        if (cur.t - prev.t > 7 * DAY_MS) expect(cur.jar).not.toBe(prev.jar);
        else expect(cur.jar).toBe(prev.jar);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);

    // Repeated sign-ups: a session whose page views after the first each come with a new jar,
    // minutes apart.
    const abusers = population.browsers.filter((b) => b.clearsBetweenPageViews > 0 && b.privateShare === 0 && b.clearing === 'never' && b.engine === 'blink');
    const sessions = abusers.flatMap((b) => {
      const bySession = new Map<number, PlannedVisit[]>();
      for (const v of visitsOf(b)) bySession.set(v.session, [...(bySession.get(v.session) ?? []), v]);
      return [...bySession.values()];
    });
    const clearing = sessions.filter((vs) => new Set(vs.map((v) => v.jar)).size > 1);
    expect(clearing.length).toBeGreaterThan(5);
    for (const vs of clearing) {
      expect(new Set(vs.map((v) => v.jar)).size).toBe(vs.length);
      for (let i = 1; i < vs.length; i++) expect((vs[i] as PlannedVisit).t - (vs[i - 1] as PlannedVisit).t).toBeLessThanOrEqual(360_000);
    }
  });

  it("the service's cookie jar: kept through WebKit's expiry, replaced with the storage jar on every other occasion", () => {
    const all = population.browsers.flatMap((b) => visitsOf(b));
    let expiredOnly = 0;
    for (const b of population.browsers) {
      const vs = visitsOf(b);
      for (let i = 1; i < vs.length; i++) {
        const prev = vs[i - 1] as PlannedVisit;
        const cur = vs[i] as PlannedVisit;
        if (cur.private || prev.private) continue;
        // A new cookie jar always comes with a new storage jar.
        if (cur.cookieJar !== prev.cookieJar) expect(cur.jar).not.toBe(prev.jar);
        else if (cur.jar !== prev.jar) {
          // Storage replaced, cookie kept: only WebKit's expiry, after more than 7 days without a visit.
          expect(b.engine).toBe('webkit');
          expect(cur.t - prev.t).toBeGreaterThan(7 * DAY_MS);
          expiredOnly++;
        }
      }
    }
    expect(expiredOnly).toBeGreaterThan(100);
    // A private window has one jar for both: its cookies go when it closes.
    for (const v of all.filter((x) => x.private)) expect(v.cookieJar).toBe(v.jar);
    // Clearing replaces both.
    const clearer = population.browsers.find((b) => b.engine === 'blink' && b.clearing === 'frequent' && b.privateShare === 0 && visitsOf(b).length > 10) as SimBrowser;
    expect(new Set(visitsOf(clearer).map((v) => v.cookieJar)).size).toBe(new Set(visitsOf(clearer).map((v) => v.jar)).size);
  });

  it('the population includes every behaviour the report breaks down', () => {
    const cohorts = new Set(population.browsers.flatMap((b) => b.cohorts));
    for (const c of ['mobile', 'desktop', 'office-identical', 'clears-storage', 'clears-between-page-views', 'private-sessions', 'webkit-itp', 'vpn', 'travel', 'multi-browser-device', 'one-time']) {
      expect(cohorts).toContain(c);
    }
    const share = population.browsers.filter((b) => b.clearing !== 'never').length / population.browsers.length;
    expect(share).toBeGreaterThan(0.25);
    expect(share).toBeLessThan(0.42);
    const all = planAllVisits(SEED, population.browsers.slice(0, 300), 90);
    for (let i = 1; i < all.length; i++) expect((all[i] as PlannedVisit).t).toBeGreaterThanOrEqual((all[i - 1] as PlannedVisit).t);
  });
});

describe('release calendar', () => {
  it('a rendering epoch moves only at releases that change the output, at the documented rate', async () => {
    const { renderEpoch } = await import('../../bench/accuracy/release-calendar.js');
    let moves = 0;
    let previous = renderEpoch('canvas', 'test-engine', 1000, 0.15);
    for (let v = 1001; v <= 3000; v++) {
      const epoch = renderEpoch('canvas', 'test-engine', v, 0.15);
      expect(epoch).toBeGreaterThanOrEqual(previous);
      if (epoch !== previous) {
        expect(epoch).toBe(v); // it moves to the release that changed it
        moves++;
      }
      previous = epoch;
    }
    expect(moves / 2000).toBeGreaterThan(0.12);
    expect(moves / 2000).toBeLessThan(0.18);
  });
});
