/**
 * When each simulated browser visits, in which storage "jar" (the cookie/localStorage/IndexedDB
 * contents the visitor token lives in) and in which private session. A jar is replaced when the
 * user clears site data, reinstalls the browser, closes a browser that wipes data on exit, or
 * when WebKit's tracking prevention expires script-written storage after 7 days without a visit,
 * and between the page views of a session in which the user clears it to come back as someone
 * new (SimBrowser.clearsBetweenPageViews). Each private session has a jar of its own that starts
 * empty. The service's own cookie (`--visitor-cookie`, set by the site's server: not script
 * storage) lives in a jar of its own, `cookieJar`, replaced with the storage jar on every
 * occasion but WebKit's expiry.
 */
import { Rng } from './prng.js';
import { DAY_MS, SIM_START_MS } from './release-calendar.js';
import { launchMorningOf, type SimBrowser } from './population.js';

export interface PlannedVisit {
  browser: number;
  /** Simulated ms since epoch. */
  t: number;
  /** Index of the browsing session within the browser's life. */
  session: number;
  /** Start of the session (ms): network and screen choices hold for the whole session. */
  sessionStart: number;
  private: boolean;
  /** Storage jar key; the token kept for a jar is sent back on the jar's later visits. */
  jar: string;
  /** The jar of the service's cookie: `jar`, but kept through WebKit's expiry of script storage. */
  cookieJar: string;
}

/** Script-written cookies and storage expire after 7 days without use under WebKit ITP. */
const ITP_CAP_MS = 7 * DAY_MS;

/** Local hour-of-day weights for personal browsing (evening peak). */
const PERSONAL_HOURS: readonly (readonly [number, number])[] = [
  [0, 2], [1, 1], [2, 0.5], [3, 0.3], [4, 0.3], [5, 0.5], [6, 1.5], [7, 3], [8, 4], [9, 4], [10, 4], [11, 4],
  [12, 5], [13, 4], [14, 4], [15, 4], [16, 4], [17, 5], [18, 6], [19, 7], [20, 8], [21, 8], [22, 6], [23, 4],
];

export function dayOf(t: number): number {
  return (t - SIM_START_MS) / DAY_MS;
}

function isWeekend(day: number): boolean {
  const dow = Math.floor(day) % 7; // day 0 is a Monday
  return dow === 5 || dow === 6;
}

/** Session start times (ms) of one browser. */
function sessionStarts(seed: string, b: SimBrowser, days: number): number[] {
  const r = new Rng(seed, 'sessions', b.index);
  const sessionDays: number[] = [b.arrivalDay];
  if (!b.oneTime) {
    for (let d = b.arrivalDay + r.exponential(1 / b.sessionsPerDay); d < days; d += r.exponential(1 / b.sessionsPerDay)) sessionDays.push(d);
  }
  const device = b.device;
  const tzOffset = device.managedBy ? device.managedBy.tz.offset : device.user.household.tz.offset;
  const starts: number[] = [];
  for (const d of sessionDays) {
    if (b.work && isWeekend(d)) continue;
    const away = device.user.trips.some((trip) => d >= trip.startDay && d < trip.endDay);
    if (away && (!device.portable || b.work)) continue;
    let localHour = b.work ? r.uniform(8, 18) : r.weighted(PERSONAL_HOURS) + r.next();
    // An office's launch morning (Office.launchDay): every machine's first visit between 9:00 and
    // 9:30, and no other session of that day before it.
    if (launchMorningOf(b) === Math.floor(d)) {
      localHour = d === b.arrivalDay ? 9 + new Rng(seed, 'launch-hour', b.index).uniform(0, 0.5) : Math.max(localHour, 9.5);
    }
    const t = SIM_START_MS + Math.floor(d) * DAY_MS + localHour * 3_600_000 + tzOffset * 60_000;
    if (t >= SIM_START_MS && t < SIM_START_MS + days * DAY_MS) starts.push(Math.round(t));
  }
  return starts.sort((a, b2) => a - b2);
}

/** Every visit of one browser, in time order. */
export function planBrowserVisits(seed: string, b: SimBrowser, days: number): PlannedVisit[] {
  const r = new Rng(seed, 'visits', b.index);
  // A stream of its own (SimBrowser.clearsBetweenPageViews), drawn from only for browsers that
  // clear between page views, so every other browser's draws stay as they were.
  const abuse = new Rng(seed, 'clearing-sessions', b.index);
  const visits: PlannedVisit[] = [];
  let generation = 0;
  // The generation of the service's cookie: everything that clears storage but WebKit's expiry.
  let cookieGeneration = 0;
  let clearIndex = 0;
  let reinstalled = false;
  let lastNormalVisit = -Infinity;
  let lastSessionDay = -1;
  const starts = sessionStarts(seed, b, days);
  starts.forEach((start, session) => {
    const day = dayOf(start);
    while (clearIndex < b.clearDays.length && (b.clearDays[clearIndex] as number) <= day) {
      clearIndex++;
      generation++;
      cookieGeneration++;
    }
    if (b.reinstallDay !== null && !reinstalled && day >= b.reinstallDay) {
      reinstalled = true;
      generation++;
      cookieGeneration++;
    }
    // A browser that wipes data on exit starts clean on each new day of use (closed overnight).
    if (b.clearing === 'on-exit' && lastSessionDay >= 0 && Math.floor(day) !== lastSessionDay) {
      generation++;
      cookieGeneration++;
    }
    lastSessionDay = Math.floor(day);
    const isPrivate = r.chance(b.privateShare);
    if (!isPrivate && b.engine === 'webkit' && lastNormalVisit > -Infinity && start - lastNormalVisit > ITP_CAP_MS) generation++;
    // Identify calls per session: mostly one (a login, a checkout), sometimes a few page views.
    let count = 1 + Math.min(4, r.geometric(0.75));
    // A session of repeated sign-ups: at least two to four page views (up to five when the draw
    // above gave more), the site's data cleared before each but the first.
    const clearing = !isPrivate && b.clearsBetweenPageViews > 0 && abuse.chance(b.clearsBetweenPageViews);
    if (clearing) count = Math.max(count, abuse.int(2, 4));
    let t = start;
    for (let i = 0; i < count; i++) {
      if (i > 0) t += Math.round(r.uniform(20_000, 360_000));
      if (i > 0 && clearing) {
        generation++;
        cookieGeneration++;
      }
      const jar = isPrivate ? `${b.index}:p${session}` : `${b.index}:n${generation}`;
      const cookieJar = isPrivate ? jar : `${b.index}:c${cookieGeneration}`;
      visits.push({ browser: b.index, t, session, sessionStart: start, private: isPrivate, jar, cookieJar });
    }
    if (!isPrivate) lastNormalVisit = t;
  });
  return visits;
}

/** All visits of the population merged in time order (ties broken by browser for determinism). */
export function planAllVisits(seed: string, browsers: readonly SimBrowser[], days: number): PlannedVisit[] {
  const all: PlannedVisit[] = [];
  for (const b of browsers) for (const v of planBrowserVisits(seed, b, days)) all.push(v);
  all.sort((a, b) => a.t - b.t || a.browser - b.browser);
  return all;
}
