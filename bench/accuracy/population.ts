/**
 * The simulated population: households of users with devices, each device with one or more
 * browsers, offices whose managed machines share one image (identical devices), and every
 * drift, state and network habit drawn once up front. Rendering a visit from this is
 * `render-visit.ts`; the visit timetable is `schedule.ts`.
 */
import { Rng, type Weighted } from './prng.js';
import {
  BROWSERS_BY_OS, COMPUTERS, COUNTRIES, ENGINE_OF, FONTS, MONITORS, OFFICE_FONT_SHARE, PHONES,
  type BrowserKind, type ComputerModel, type Country, type Engine, type OsFamily, type PhoneModel,
} from './catalog.js';

export interface PopulationOptions {
  seed: string;
  browsers: number;
  days: number;
}

export interface Household {
  id: number;
  country: Country;
  tz: { tz: string; offset: number };
  languages: string[];
  isp: number;
  ipv6: boolean;
  /** Days between home address changes (Infinity = static). */
  leaseDays: number;
}

export interface Office {
  id: number;
  country: Country;
  tz: { tz: string; offset: number };
  languages: string[];
  computer: ComputerModel;
  browser: BrowserKind;
  /** A second browser installed on the image (or null). */
  secondBrowser: BrowserKind | null;
  /** Days after release the IT department rolls out browser/OS updates to every machine at once. */
  rolloutLagDays: number;
  /** Group policy wiping cookies and site data when the browser closes. */
  clearOnExit: boolean;
  /** Managed phones handed out to staff (identical model and build), or null. */
  phone: PhoneModel | null;
  seats: number;
  filled: number;
  fonts: string[];
  /** See Hardware.diskGb. */
  diskGb: number;
  /** A corporate campus: hundreds of seats of one image behind a small pool of egress addresses. */
  campus: boolean;
  /**
   * The day (a weekday of the first two weeks) the company starts using the site: every work
   * browser of the office makes its first visit that morning, within half an hour (a tool
   * rolled out to the staff); null: they arrive over the first two weeks.
   */
  launchDay: number | null;
}

export interface Trip {
  startDay: number;
  endDay: number;
  country: Country;
  tz: { tz: string; offset: number };
}

export interface User {
  id: number;
  household: Household;
  office: Office | null;
  languages: string[];
  /** Share of personal sessions behind a VPN (0 = no VPN). */
  vpnShare: number;
  vpnProvider: number;
  carrier: number;
  trips: Trip[];
}

/** A device's hardware: a computer model's fields (phones fill them from their model too). */
export interface Hardware extends Omit<ComputerModel, 'os' | 'cls'> {
  hdr: boolean;
  /**
   * Disk size. No browser shows it any more (Chromium's storage quota stopped depending on it in
   * release 138; render-visit.ts), so no signal carries it; it is still drawn, so that every later
   * draw of the device's stream, and with it the population, stays what it was.
   */
  diskGb: number;
}

export interface Device {
  id: number;
  user: User;
  cls: 'phone' | 'tablet' | 'laptop' | 'desktop';
  os: OsFamily;
  hardware: Hardware;
  phone: PhoneModel | null;
  managedBy: Office | null;
  /** Days after release this device installs OS updates. */
  osLagDays: number;
  /**
   * Apple devices still on the previous major OS release (18.x) until this day (Infinity: for
   * the whole period), then upgraded to the current one; null when on the current release.
   */
  previousMajorUntil: number | null;
  /** Bought from the mobile carrier as its subsidised model, updated on the carrier's rollout day. */
  carrierPhone: boolean;
  windows11: boolean;
  win11UpgradeDay: number | null;
  androidVersion: number;
  androidUpgradeDay: number | null;
  fonts: string[];
  fontInstall: { day: number; fonts: string[] } | null;
  /** External monitor and the chance a session is on it. */
  monitor: { screen: [number, number]; dpr: number; share: number } | null;
  scalingChange: { day: number; dpr: number } | null;
  autoDark: boolean;
  dark: boolean;
  darkToggleDay: number | null;
  tzAuto: boolean;
  reducedMotion: boolean;
  forcedColors: boolean;
  /** Travels with the user on trips. */
  portable: boolean;
}

export type ClearingHabit = 'never' | 'occasional' | 'frequent' | 'on-exit';

export interface SimBrowser {
  index: number;
  /** True identity, e.g. 'b000017'. */
  id: string;
  device: Device;
  kind: BrowserKind;
  engine: Engine;
  /** Behaviour groups the report breaks figures down by. */
  cohorts: string[];
  work: boolean;
  oneTime: boolean;
  sessionsPerDay: number;
  arrivalDay: number;
  upgradeLagDays: number;
  clearing: ClearingHabit;
  /** Days on which the user clears cookies and site data (occasional/frequent habits). */
  clearDays: number[];
  reinstallDay: number | null;
  /**
   * Share of its sessions in which the user clears the site's data between page views, to come
   * back as someone new a minute later: repeated sign-ups, promotion abuse, a developer trying
   * the product. 0 for most browsers.
   */
  clearsBetweenPageViews: number;
  privateShare: number;
  languageEdit: { day: number; languages: string[] } | null;
  zoom: number;
  zoomChange: { day: number; zoom: number } | null;
}

export interface Population {
  options: PopulationOptions;
  browsers: SimBrowser[];
  devices: Device[];
  offices: Office[];
  households: Household[];
}

const IOS_AFFINITY: Record<string, number> = { US: 2.2, CA: 2, AU: 2, GB: 1.8, JP: 2.2, FR: 1, DE: 0.8, NL: 1, KR: 0.8, IN: 0.25, ID: 0.3, BR: 0.4, MX: 0.5, TR: 0.5, ES: 0.7, IT: 0.7, PL: 0.6 };

function phoneWeights(country: Country): Weighted<PhoneModel> {
  const affinity = IOS_AFFINITY[country.code] ?? 1;
  return PHONES.map(([m, w]) => [m, m.os === 'ios' ? w * affinity : w] as const);
}

const COMPUTER_ONLY = COMPUTERS.filter(([m]) => m.cls !== 'tablet');
const TABLETS = COMPUTERS.filter(([m]) => m.cls === 'tablet');

function baseFonts(os: OsFamily, windows11: boolean): string[] {
  switch (os) {
    case 'windows': return windows11 ? [...FONTS.windows10, ...FONTS.windows11Extra] : [...FONTS.windows10];
    case 'macos': return [...FONTS.macos];
    case 'linux': return [...FONTS.linux];
    case 'chromeos': return [...FONTS.chromeos];
    case 'android': return [...FONTS.android];
    case 'ios': case 'ipados': return [...FONTS.ios];
  }
}

export { baseFonts };

function extraFonts(rng: Rng, os: OsFamily): string[] {
  if (os === 'android' || os === 'ios' || os === 'ipados' || os === 'chromeos') return [];
  const fonts: string[] = [];
  if (os !== 'linux' && rng.chance(os === 'windows' ? OFFICE_FONT_SHARE : 0.3)) fonts.push(...FONTS.office);
  if (os !== 'linux' && rng.chance(0.08)) fonts.push(...FONTS.adobe);
  if (rng.chance(os === 'linux' ? 0.3 : 0.1)) {
    const n = rng.int(1, 4);
    for (let i = 0; i < n; i++) fonts.push(rng.pick(FONTS.hobbyist));
  }
  return fonts;
}

function fontPack(rng: Rng): string[] {
  return rng.weighted<readonly string[]>([[FONTS.office, 4], [FONTS.adobe, 2], [FONTS.hobbyist.slice(0, 3), 3]]).slice();
}

/** Day of an event that happens to a fraction of entities at a uniformly random time, or null. */
function maybeDay(rng: Rng, probability: number, days: number): number | null {
  return rng.chance(probability) ? rng.uniform(0, days) : null;
}

function appleLag(rng: Rng): number {
  return rng.weighted<() => number>([[() => rng.uniform(0, 7), 30], [() => rng.uniform(7, 42), 40], [() => rng.uniform(60, 200), 30]])();
}

function browserLag(rng: Rng): number {
  return rng.weighted<() => number>([[() => rng.uniform(0, 3), 60], [() => rng.uniform(3, 14), 30], [() => rng.uniform(14, 60), 10]])();
}

function languagesWithEdit(rng: Rng, languages: string[]): string[] {
  if (!languages.includes('en-US')) return [...languages, 'en-US', 'en'];
  return [...languages, rng.pick(['fr', 'de', 'es', 'ja', 'pt-BR'])];
}

/** Share of users whose phone is their carrier's subsidised model (*assumption*). */
const CARRIER_PHONE_SHARE = 0.15;
/** Share of Apple devices on the previous major release at the start, and of those that upgrade during the period (*assumption*). */
const PREVIOUS_MAJOR_SHARE = 0.12;
const PREVIOUS_MAJOR_UPGRADE = 0.6;

/** Each carrier of a country sells one subsidised phone model and pushes its updates on one day. */
function carrierOffer(seed: string, country: Country, carrier: number): { model: PhoneModel; lagDays: number } {
  const r = new Rng(seed, 'carrier', country.code, carrier);
  return { model: r.weighted(phoneWeights(country)), lagDays: r.uniform(3, 30) };
}

export function generatePopulation(options: PopulationOptions): Population {
  const { seed, days } = options;
  const households: Household[] = [];
  const devices: Device[] = [];
  const browsers: SimBrowser[] = [];
  const countryWeights: Weighted<Country> = COUNTRIES.map((c) => [c, c.weight] as const);

  // Offices: roughly one per 500 browsers, 10..120 seats, each a cluster of identical machines.
  const offices: Office[] = [];
  const officeCount = Math.max(1, Math.round(options.browsers / 500));
  for (let i = 0; i < officeCount; i++) {
    const r = new Rng(seed, 'office', i);
    const country = r.weighted(countryWeights);
    const computer = r.weighted(COMPUTER_ONLY.filter(([m]) => m.os === 'windows' || m.os === 'macos'));
    const browser: BrowserKind = computer.os === 'macos' ? r.weighted([['chrome', 60], ['safari', 40]]) : r.weighted([['chrome', 55], ['edge', 45]]);
    offices.push({
      id: i, country, tz: r.weighted(country.timezones), languages: r.weighted(country.languages), computer, browser,
      secondBrowser: r.chance(0.2) ? (browser === 'chrome' ? (computer.os === 'macos' ? 'safari' : 'edge') : 'chrome') : null,
      rolloutLagDays: r.uniform(2, 21), clearOnExit: r.chance(0.12),
      phone: r.chance(0.2) ? r.weighted(PHONES.filter(([m]) => m.name === 'iPhone 15' || m.name === 'iPhone 13' || m.name === 'Galaxy A54')) : null,
      seats: Math.min(120, Math.round(r.logNormal(30, 0.7)) + 5), filled: 0,
      fonts: [...baseFonts(computer.os, true), ...(computer.os === 'windows' ? FONTS.office : [])], diskGb: r.pick([256, 512]),
      campus: false, launchDay: launchDayOf(seed, i, days),
    });
  }
  // Corporate campuses: one per 5,000 browsers, 150-300 seats of one Windows image.
  const campusCount = Math.max(1, Math.round(options.browsers / 5000));
  for (let i = 0; i < campusCount; i++) {
    const r = new Rng(seed, 'campus', i);
    const country = r.weighted(countryWeights);
    const computer = r.weighted(COMPUTER_ONLY.filter(([m]) => m.os === 'windows'));
    offices.push({
      id: officeCount + i, country, tz: r.weighted(country.timezones), languages: r.weighted(country.languages), computer,
      browser: r.weighted([['chrome', 50], ['edge', 50]]), secondBrowser: null, rolloutLagDays: r.uniform(2, 21), clearOnExit: r.chance(0.3),
      phone: null, seats: r.int(150, 300), filled: 0, fonts: [...baseFonts('windows', true), ...FONTS.office], diskGb: 512, campus: true,
      launchDay: launchDayOf(seed, officeCount + i, days),
    });
  }

  const makeHardware = (r: Rng, m: ComputerModel | PhoneModel, diskChoices: Weighted<number>): Hardware => ({
    screen: [...m.screen], dpr: m.dpr, gpu: m.gpu, cores: m.cores, memory: m.memory,
    touchPoints: 'touchPoints' in m ? m.touchPoints : 5, arm: 'arm' in m ? m.arm : true, p3: m.p3,
    hdr: m.p3 && r.chance(0.4), diskGb: r.weighted(diskChoices),
  });
  const phoneDisk: Weighted<number> = [[64, 10], [128, 45], [256, 35], [512, 10]];
  const computerDisk: Weighted<number> = [[256, 40], [512, 45], [1024, 15]];

  const addDevice = (r: Rng, user: User, cls: Device['cls'], os: OsFamily, hardware: Hardware, phone: PhoneModel | null, managedBy: Office | null, carrierLag: number | null = null): Device => {
    const windows11 = os === 'windows' && (managedBy ? true : r.chance(0.58));
    const mobile = cls === 'phone' || cls === 'tablet';
    const monitorShare = cls === 'laptop' && !managedBy && r.chance(0.3) ? r.uniform(0.2, 0.8) : 0;
    const scalingDay = mobile || managedBy ? null : maybeDay(r, 0.02, days);
    const device: Device = {
      id: devices.length, user, cls, os, hardware, phone, managedBy,
      osLagDays: managedBy ? managedBy.rolloutLagDays : carrierLag ?? (os === 'ios' || os === 'ipados' || os === 'macos' ? appleLag(r) : r.uniform(0, 10)),
      previousMajorUntil: !managedBy && carrierLag === null && (os === 'ios' || os === 'ipados' || os === 'macos') && r.chance(PREVIOUS_MAJOR_SHARE)
        ? (r.chance(PREVIOUS_MAJOR_UPGRADE) ? r.uniform(0, days) : Infinity) : null,
      carrierPhone: carrierLag !== null,
      windows11, win11UpgradeDay: os === 'windows' && !windows11 ? maybeDay(r, 0.04, days) : null,
      androidVersion: r.weighted([[16, 30], [15, 35], [14, 25], [13, 10]]),
      androidUpgradeDay: os === 'android' ? maybeDay(r, 0.06, days) : null,
      fonts: managedBy ? [...managedBy.fonts] : [...baseFonts(os, windows11), ...extraFonts(r, os)],
      fontInstall: mobile || managedBy ? null : (r.chance(0.04) ? { day: r.uniform(0, days), fonts: fontPack(r) } : null),
      monitor: monitorShare > 0 ? { ...r.weighted(MONITORS), share: monitorShare } : null,
      scalingChange: scalingDay === null ? null : { day: scalingDay, dpr: hardware.dpr === 1 ? 1.25 : hardware.dpr === 1.25 ? 1.5 : 1.25 },
      autoDark: !managedBy && r.chance(mobile ? 0.2 : 0.08),
      dark: !managedBy && r.chance(0.3),
      darkToggleDay: managedBy ? null : maybeDay(r, 0.03, days),
      tzAuto: mobile ? r.chance(0.95) : r.chance(0.6),
      reducedMotion: !managedBy && r.chance(0.02),
      forcedColors: os === 'windows' && !managedBy && r.chance(0.003),
      portable: cls === 'phone' || cls === 'laptop' || (cls === 'tablet' && r.chance(0.5)),
    };
    devices.push(device);
    return device;
  };

  const addBrowser = (device: Device, kind: BrowserKind, work: boolean, managed: boolean) => {
    if (browsers.length >= options.browsers) return;
    const index = browsers.length;
    const br = new Rng(seed, 'browser', index);
    const office = device.managedBy;
    const clearing: ClearingHabit = office?.clearOnExit ? 'on-exit'
      : br.weighted<ClearingHabit>([['never', 67], ['occasional', 20], ['frequent', 9], ['on-exit', 4]]);
    const clearDays: number[] = [];
    if (clearing === 'occasional') for (let i = br.int(1, 3); i > 0; i--) clearDays.push(br.uniform(0, days));
    if (clearing === 'frequent') for (let d = br.exponential(7); d < days; d += br.exponential(7)) clearDays.push(d);
    clearDays.sort((a, b) => a - b);
    const oneTime = !work && br.chance(0.3);
    const desktop = device.cls === 'laptop' || device.cls === 'desktop';
    const zoomChange = desktop && !managed && br.chance(0.05) ? { day: br.uniform(0, days), zoom: br.pick([0.9, 1.1, 1.25]) } : null;
    const browser: SimBrowser = {
      index, id: `b${String(index).padStart(6, '0')}`, device, kind,
      // Every iOS and iPadOS browser runs on WebKit.
      engine: device.os === 'ios' || device.os === 'ipados' ? 'webkit' : ENGINE_OF[kind], cohorts: [], work, oneTime,
      sessionsPerDay: work ? Math.min(3, br.logNormal(0.5, 0.6)) : Math.min(3, Math.max(0.01, br.logNormal(0.12, 1.1))),
      arrivalDay: launchOr(work ? office?.launchDay ?? null : null, work || br.chance(0.55) ? br.uniform(0, Math.min(14, days)) : br.uniform(0, days)),
      upgradeLagDays: managed && office ? office.rolloutLagDays : browserLag(br),
      clearing, clearDays,
      reinstallDay: managed ? null : maybeDay(br, 0.015, days),
      clearsBetweenPageViews: clearsBetweenPageViews(seed, index, managed),
      privateShare: !work && br.chance(0.15) ? br.uniform(0.1, 0.5) : 0,
      languageEdit: managed ? null : (br.chance(0.02) ? { day: br.uniform(0, days), languages: languagesWithEdit(br, device.user.languages) } : null),
      zoom: desktop && !managed && br.chance(0.03) ? br.pick([1.1, 1.25]) : 1,
      zoomChange,
    };
    browser.cohorts = cohortsOf(browser);
    browsers.push(browser);
  };

  const secondKind = (r: Rng, os: OsFamily, first: BrowserKind): BrowserKind | null => {
    const options2 = BROWSERS_BY_OS[os].filter(([k]) => k !== first);
    return options2.length ? r.weighted(options2) : null;
  };

  let userId = 0;
  for (let h = 0; browsers.length < options.browsers; h++) {
    const r = new Rng(seed, 'household', h);
    const country = r.weighted(countryWeights);
    const household: Household = {
      id: h, country, tz: r.weighted(country.timezones), languages: r.weighted(country.languages), isp: r.int(0, 3),
      ipv6: r.chance(0.35), leaseDays: r.weighted([[Infinity, 45], [r.uniform(20, 40), 40], [r.uniform(5, 9), 15]]),
    };
    households.push(household);
    const members = r.weighted([[1, 30], [2, 35], [3, 18], [4, 17]]);
    const sharedComputer = members > 1 && r.chance(0.25);
    let householdComputerDone = false;
    for (let m = 0; m < members && browsers.length < options.browsers; m++) {
      const ur = new Rng(seed, 'user', userId);
      let office: Office | null = null;
      if (ur.chance(0.3)) {
        office = offices.find((o) => o.country === country && o.filled < o.seats) ?? null;
        if (office) office.filled++;
      }
      const trips: Trip[] = [];
      if (ur.chance(0.12)) {
        for (let t = ur.int(1, 2); t > 0; t--) {
          const dest = ur.weighted(countryWeights.filter(([c]) => c !== country));
          const start = ur.uniform(0, days);
          trips.push({ startDay: start, endDay: start + ur.uniform(2, 10), country: dest, tz: ur.weighted(dest.timezones) });
        }
      }
      const user: User = {
        id: userId++, household, office, languages: ur.chance(0.9) ? household.languages : ur.weighted(country.languages),
        vpnShare: ur.chance(0.09) ? ur.uniform(0.3, 1) : 0, vpnProvider: ur.int(0, 5), carrier: ur.int(0, 2), trips,
      };
      // Personal phone.
      if (ur.chance(0.92)) {
        const offer = ur.chance(CARRIER_PHONE_SHARE) ? carrierOffer(seed, country, user.carrier) : null;
        const model = offer ? offer.model : ur.weighted(phoneWeights(country));
        const hardware = makeHardware(ur, model, phoneDisk);
        const device = addDevice(ur, user, 'phone', model.os, offer ? { ...hardware, hdr: false, diskGb: 128 } : hardware, model, null, offer?.lagDays ?? null);
        // Samsung Internet ships on Samsung phones only.
        const phoneBrowsers = BROWSERS_BY_OS[model.os].filter(([k]) => k !== 'samsung' || model.name.startsWith('Galaxy'));
        const kind = ur.weighted(phoneBrowsers);
        addBrowser(device, kind, false, false);
        if (ur.chance(0.08)) {
          const k2 = ur.weighted(phoneBrowsers.filter(([k]) => k !== kind));
          addBrowser(device, k2, false, false);
        }
      }
      // Personal computer (one shared computer per household counts once).
      if (ur.chance(0.55) && !(sharedComputer && householdComputerDone)) {
        householdComputerDone = true;
        const model = ur.weighted(COMPUTER_ONLY);
        const device = addDevice(ur, user, model.cls === 'desktop' ? 'desktop' : 'laptop', model.os, makeHardware(ur, model, computerDisk), null, null);
        const kind = ur.weighted(BROWSERS_BY_OS[model.os]);
        addBrowser(device, kind, false, false);
        if (ur.chance(0.22)) {
          const k2 = secondKind(ur, model.os, kind);
          if (k2) {
            addBrowser(device, k2, false, false);
            if (ur.chance(0.18)) { const k3 = secondKind(ur, model.os, k2); if (k3 && k3 !== kind) addBrowser(device, k3, false, false); }
          }
        }
      }
      if (ur.chance(0.06)) {
        const model = ur.weighted(TABLETS);
        const device = addDevice(ur, user, 'tablet', model.os, makeHardware(ur, model, phoneDisk), null, null);
        addBrowser(device, ur.weighted(BROWSERS_BY_OS[model.os]), false, false);
      }
      // Work machine from the office image, and for some offices an identical managed phone.
      if (office) {
        const hw: Hardware = { ...makeHardware(ur, office.computer, computerDisk), hdr: false, diskGb: office.diskGb };
        const device = addDevice(ur, user, office.computer.cls === 'desktop' ? 'desktop' : 'laptop', office.computer.os, hw, null, office);
        addBrowser(device, office.browser, true, true);
        if (office.secondBrowser) addBrowser(device, office.secondBrowser, true, true);
        if (office.phone) {
          const phw: Hardware = { ...makeHardware(ur, office.phone, phoneDisk), hdr: false, diskGb: 128 };
          const phone = addDevice(ur, user, 'phone', office.phone.os, phw, office.phone, office);
          addBrowser(phone, office.phone.os === 'ios' ? 'safari' : 'chrome', true, true);
        }
      }
    }
  }
  const perDevice = new Map<Device, number>();
  for (const b of browsers) perDevice.set(b.device, (perDevice.get(b.device) ?? 0) + 1);
  for (const b of browsers) if ((perDevice.get(b.device) ?? 0) > 1) b.cohorts.push('multi-browser-device');
  return { options, browsers, devices, offices, households };
}

/**
 * An office's launch day (Office.launchDay) for 30% of offices, from a random stream of its own:
 * the rest of the population is drawn as before it existed.
 */
function launchDayOf(seed: string, office: number, days: number): number | null {
  const r = new Rng(seed, 'office-launch', office);
  // Day 0 is a Monday: the weekdays of the first two weeks.
  const weekdays = [0, 1, 2, 3, 4, 7, 8, 9, 10, 11].filter((d) => d < days);
  return r.chance(0.3) && weekdays.length > 0 ? r.pick(weekdays) : null;
}

/**
 * About one personal browser in a hundred clears the site's data between page views in some of
 * its sessions (*assumption*; on a site with sign-ups or promotions, the abusers a fraud team
 * looks for). Drawn from a stream of its own, so that adding it left every other draw as it was.
 */
function clearsBetweenPageViews(seed: string, index: number, managed: boolean): number {
  const r = new Rng(seed, 'clears-between-page-views', index);
  return !managed && r.chance(0.01) ? r.uniform(0.2, 1) : 0;
}

/** A launch office's day, else the browser's own draw (drawn either way, to keep the streams). */
function launchOr(launchDay: number | null, drawn: number): number {
  return launchDay ?? drawn;
}

/** The morning a work browser of a launch office makes its first visit (Office.launchDay), or null. */
export function launchMorningOf(b: SimBrowser): number | null {
  return b.work ? b.device.managedBy?.launchDay ?? null : null;
}

function cohortsOf(b: SimBrowser): string[] {
  const d = b.device;
  const c: string[] = [d.cls === 'phone' || d.cls === 'tablet' ? 'mobile' : 'desktop'];
  if (d.managedBy) c.push('office-identical');
  if (d.managedBy?.clearOnExit) c.push('office-clear-on-exit');
  if (d.managedBy?.campus) c.push('corporate-image');
  if (launchMorningOf(b) !== null) c.push('office-launch');
  if (d.carrierPhone) c.push('carrier-identical');
  if (d.previousMajorUntil !== null) c.push('os-release-drift');
  if (b.clearing !== 'never') c.push('clears-storage');
  if (b.clearsBetweenPageViews > 0) c.push('clears-between-page-views');
  if (b.privateShare > 0) c.push('private-sessions');
  if (b.engine === 'webkit') c.push('webkit-itp');
  if (b.kind === 'brave') c.push('brave-farbling');
  if (d.user.vpnShare > 0) c.push('vpn');
  if (d.user.trips.length > 0 && d.portable) c.push('travel');
  if (b.oneTime) c.push('one-time');
  return c;
}
