/**
 * Renders one planned visit into exactly what the agent and the browser would send: the
 * `Signals` of the browser's state at that moment (versions after upgrades, OS updates, fonts,
 * screen, zoom, timezone, languages, colour scheme), private-mode and anti-fingerprinting noise,
 * occasional failed sources, and the HTTP headers and client address of the request.
 * Values that real browsers only expose as hashes (canvas, audio, WebGL parameters, font
 * preferences, math) are hashes of the inputs that determine them, so two browsers get the same
 * hash exactly when a real browser would render the same pixels.
 */
import { createHash } from 'node:crypto';
import type { Signals, SignalName } from '../../src/protocol/index.js';
import { FONTS, type OsFamily } from './catalog.js';
import { Rng } from './prng.js';
import {
  CHANGE_PROBABILITY, appleVersionAt, browserMajorAt, chromiumMajorOf, renderEpoch, windowsUpdateIndexAt,
} from './release-calendar.js';
import type { SimBrowser } from './population.js';
import { dayOf, type PlannedVisit } from './schedule.js';
import { sessionNetwork, type NetworkKind } from './network.js';

export interface RenderedVisit {
  signals: Signals;
  signalErrors?: Partial<Record<SignalName, string>>;
  /** Anti-fingerprinting noise in the signals: Brave's farbling, a Safari or Firefox private window. */
  noisy: boolean;
  ip: string;
  network: NetworkKind;
  userAgentHeader: string;
  acceptLanguage: string;
  url: string;
}

function digest(...parts: (string | number | boolean)[]): string {
  return createHash('sha256').update(parts.join('|')).digest('hex').slice(0, 32);
}

const PDF_PLUGINS = ['Chrome PDF Viewer', 'Chromium PDF Viewer', 'Microsoft Edge PDF Viewer', 'PDF Viewer', 'WebKit built-in PDF'];
const GREASE = ['Not_A Brand', 'Not A(Brand', 'Not/A)Brand', 'Not)A;Brand', 'Not?A_Brand', 'Not.A/Brand'];
const BRAND: Record<string, string> = { chrome: 'Google Chrome', edge: 'Microsoft Edge', opera: 'Opera', brave: 'Brave', samsung: 'Samsung Internet' };
const SITE_PAGES = ['/', '/products', '/products/42', '/cart', '/checkout', '/account', '/search?q=shoes', '/blog/launch'];

function osGroup(os: OsFamily): string {
  return os === 'macos' || os === 'ios' || os === 'ipados' ? 'apple' : os === 'windows' ? 'windows' : 'unix';
}

interface BrowserState {
  day: number;
  major: number;
  chromium: number;
  apple: { major: number; minor: number };
  engineVersion: number;
  windows11: boolean;
  osTextEpoch: string;
  androidVersion: number;
}

function stateAt(b: SimBrowser, day: number): BrowserState {
  const d = b.device;
  const lag = b.reinstallDay !== null && day >= b.reinstallDay ? Math.min(b.upgradeLagDays, 1) : b.upgradeLagDays;
  // Holdouts on the previous major release run its last point release until they upgrade.
  const apple = d.previousMajorUntil !== null && day < d.previousMajorUntil ? { major: 18, minor: 7 } : appleVersionAt(day, d.osLagDays);
  // Apple releases in one sequence: the previous major's point releases come before the current one's.
  const appleIndex = apple.major === 18 ? apple.minor - 50 : apple.minor;
  const major = b.kind === 'safari' ? appleIndex : browserMajorAt(b.kind, day, lag);
  const chromium = chromiumMajorOf(b.kind, major);
  const windows11 = d.windows11 || (d.win11UpgradeDay !== null && day >= d.win11UpgradeDay);
  const androidVersion = d.androidVersion + (d.androidUpgradeDay !== null && day >= d.androidUpgradeDay ? 1 : 0);
  let osTextEpoch: string;
  switch (d.os) {
    case 'windows':
      osTextEpoch = `w${windows11 ? 11 : 10}:${renderEpoch('os-text', 'windows', windowsUpdateIndexAt(day, d.osLagDays), CHANGE_PROBABILITY.windowsText)}`;
      break;
    case 'macos': case 'ios': case 'ipados':
      osTextEpoch = `a${d.os}:${renderEpoch('os-text', 'apple', appleIndex, CHANGE_PROBABILITY.appleText)}`;
      break;
    case 'android': osTextEpoch = `android${androidVersion}`; break;
    case 'chromeos': osTextEpoch = `cros${renderEpoch('os-text', 'chromeos', chromium, CHANGE_PROBABILITY.canvas)}`; break;
    case 'linux': osTextEpoch = 'linux'; break;
  }
  // WebKit on Apple platforms is versioned with the OS; iOS Chrome/Firefox/Edge render with it too.
  const engineVersion = b.engine === 'webkit' ? appleIndex : b.engine === 'blink' ? chromium : major;
  return { day, major, chromium, apple, engineVersion, windows11, osTextEpoch, androidVersion };
}

function userAgent(b: SimBrowser, s: BrowserState): string {
  const d = b.device;
  const m = s.major;
  const c = s.chromium;
  const ios = `${s.apple.major}_${s.apple.minor}`;
  const safariVersion = `${s.apple.major}.${s.apple.minor}`;
  const webkitTail = '(KHTML, like Gecko)';
  switch (d.os) {
    case 'ios': {
      const head = `Mozilla/5.0 (iPhone; CPU iPhone OS ${ios} like Mac OS X) AppleWebKit/605.1.15 ${webkitTail}`;
      if (b.kind === 'chrome') return `${head} CriOS/${m}.0.0.0 Mobile/15E148 Safari/604.1`;
      if (b.kind === 'firefox') return `${head} FxiOS/${m}.0 Mobile/15E148 Safari/605.1.15`;
      if (b.kind === 'edge') return `${head} Version/${safariVersion} EdgiOS/${m}.0.0.0 Mobile/15E148 Safari/604.1`;
      return `${head} Version/${safariVersion} Mobile/15E148 Safari/604.1`;
    }
    case 'ipados':
      // iPadOS asks for desktop sites: it presents itself as a Mac.
      if (b.kind === 'chrome') return `Mozilla/5.0 (iPad; CPU OS ${ios} like Mac OS X) AppleWebKit/605.1.15 ${webkitTail} CriOS/${m}.0.0.0 Mobile/15E148 Safari/604.1`;
      return `Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 ${webkitTail} Version/${safariVersion} Safari/605.1.15`;
    case 'android': {
      if (b.kind === 'firefox') return `Mozilla/5.0 (Android ${s.androidVersion}; Mobile; rv:${m}.0) Gecko/${m}.0 Firefox/${m}.0`;
      if (b.kind === 'samsung') return `Mozilla/5.0 (Linux; Android ${s.androidVersion}; SAMSUNG ${d.phone?.uaModel ?? 'SM-A155F'}) AppleWebKit/537.36 ${webkitTail} SamsungBrowser/${m}.0 Chrome/${c}.0.0.0 Mobile Safari/537.36`;
      const base = `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 ${webkitTail} Chrome/${c}.0.0.0 Mobile Safari/537.36`;
      return b.kind === 'opera' ? `${base} OPR/${m}.0.0.0` : base;
    }
    default: {
      const platform = d.os === 'windows' ? 'Windows NT 10.0; Win64; x64' : d.os === 'macos' ? 'Macintosh; Intel Mac OS X 10_15_7'
        : d.os === 'chromeos' ? `X11; CrOS x86_64 ${c * 113}.0.0` : 'X11; Linux x86_64';
      if (b.kind === 'firefox') {
        const ffPlatform = d.os === 'macos' ? 'Macintosh; Intel Mac OS X 10.15' : platform;
        return `Mozilla/5.0 (${ffPlatform}; rv:${m}.0) Gecko/20100101 Firefox/${m}.0`;
      }
      if (b.kind === 'safari') return `Mozilla/5.0 (${platform}) AppleWebKit/605.1.15 ${webkitTail} Version/${safariVersion} Safari/605.1.15`;
      const chrome = `Mozilla/5.0 (${platform}) AppleWebKit/537.36 ${webkitTail} Chrome/${c}.0.0.0 Safari/537.36`;
      if (b.kind === 'edge') return `${chrome} Edg/${m}.0.0.0`;
      if (b.kind === 'opera') return `${chrome} OPR/${m}.0.0.0`;
      return chrome;
    }
  }
}

function navigatorPlatform(b: SimBrowser): string {
  switch (b.device.os) {
    case 'windows': return 'Win32';
    case 'macos': case 'ipados': return b.kind === 'chrome' && b.device.os === 'ipados' ? 'iPad' : 'MacIntel';
    case 'ios': return 'iPhone';
    case 'android': return b.engine === 'gecko' ? 'Linux aarch64' : 'Linux armv81';
    case 'linux': case 'chromeos': return 'Linux x86_64';
  }
}

function webglStrings(b: SimBrowser): { vendor: string; renderer: string } {
  const gpu = b.device.hardware.gpu;
  if (b.engine === 'webkit') return { vendor: 'Apple Inc.', renderer: 'Apple GPU' };
  if (b.engine === 'gecko') return { vendor: 'Mozilla', renderer: `${gpu.vendor === 'Apple' ? `Apple ${gpu.model}` : gpu.model}, or similar` };
  switch (b.device.os) {
    case 'android': return { vendor: gpu.vendor, renderer: gpu.model };
    case 'macos': return { vendor: 'Google Inc. (Apple)', renderer: `ANGLE (Apple, ANGLE Metal Renderer: Apple ${gpu.model}, Unspecified Version)` };
    case 'windows': return { vendor: `Google Inc. (${gpu.vendor})`, renderer: `ANGLE (${gpu.vendor}, ${gpu.model} Direct3D11 vs_5_0 ps_5_0, D3D11)` };
    default: return { vendor: `Google Inc. (${gpu.vendor})`, renderer: `ANGLE (${gpu.vendor}, ${gpu.model}, OpenGL 4.6)` };
  }
}

function acceptLanguageOf(languages: readonly string[]): string {
  return languages.map((l, i) => (i === 0 ? l : `${l};q=${Math.max(0.1, 1 - i / 10).toFixed(1)}`)).join(',');
}

/** Renders a visit. Deterministic in (seed, visit). */
export function renderVisit(seed: string, b: SimBrowser, visit: PlannedVisit): RenderedVisit {
  const sessionStart = visit.sessionStart;
  const d = b.device;
  const user = d.user;
  const hw = d.hardware;
  const day = dayOf(visit.t);
  const s = stateAt(b, day);
  const office = d.managedBy;
  const homeTz = office ? office.tz : user.household.tz;
  const trip = d.portable && !b.work ? user.trips.find((t) => day >= t.startDay && day < t.endDay) : undefined;
  const tz = trip && d.tzAuto ? trip.tz : homeTz;
  const localHour = (((visit.t / 3_600_000 - tz.offset / 60) % 24) + 24) % 24;
  const sessionLocalHour = (((sessionStart / 3_600_000 - homeTz.offset / 60) % 24) + 24) % 24;
  const sessionRng = new Rng(seed, 'session', b.index, visit.session);
  const visitRng = new Rng(seed, 'visit', b.index, visit.t);
  const net = sessionNetwork(seed, b, visit.session, sessionStart, sessionLocalHour);

  const baseLanguages = office ? office.languages : user.languages;
  const languages = b.languageEdit && day >= b.languageEdit.day ? b.languageEdit.languages : baseLanguages;
  const navigatorLanguages = b.engine === 'webkit' ? languages.slice(0, 1) : languages;

  // Screen: laptop on an external monitor for some sessions, OS display scaling change, zoom.
  let [width, height] = hw.screen;
  let dpr = hw.dpr;
  const onMonitor = d.monitor !== null && !trip && sessionRng.chance(d.monitor.share);
  if (d.monitor && onMonitor) {
    [width, height] = d.monitor.screen;
    dpr = d.monitor.dpr;
  } else if (d.scalingChange && day >= d.scalingChange.day) {
    width = Math.round((width * dpr) / d.scalingChange.dpr);
    height = Math.round((height * dpr) / d.scalingChange.dpr);
    dpr = d.scalingChange.dpr;
  }
  const zoom = b.zoomChange && day >= b.zoomChange.day ? b.zoomChange.zoom : b.zoom;
  if (b.engine !== 'webkit' && d.cls !== 'phone' && d.cls !== 'tablet') {
    dpr = Math.round(dpr * zoom * 1000) / 1000;
    if (b.engine === 'gecko') { width = Math.round(width / zoom); height = Math.round(height / zoom); }
  }

  // Fonts: OS set (Windows 11 upgrade adds its fonts), extras, fonts installed later.
  let fonts: string[] = [...d.fonts];
  if (d.os === 'windows' && s.windows11 && !d.windows11) fonts.push(...FONTS.windows11Extra);
  if (d.fontInstall && day >= d.fontInstall.day) fonts.push(...d.fontInstall.fonts);
  fonts = [...new Set(fonts)].sort();

  const dark = d.autoDark ? localHour >= 19 || localHour < 7 : d.dark !== (d.darkToggleDay !== null && day >= d.darkToggleDay);
  const group = osGroup(d.os);
  const arch = hw.arm ? 127 : 255;
  const canvasEpoch = renderEpoch('canvas', b.engine, s.engineVersion, CHANGE_PROBABILITY.canvas);
  const audioEpoch = renderEpoch('audio', b.engine, s.engineVersion, CHANGE_PROBABILITY.audio);
  const webglEpoch = renderEpoch('webgl', b.engine, s.engineVersion, CHANGE_PROBABILITY.webgl);
  const cjk = /^(ja|ko|zh)/.test(languages[0] ?? '');

  let canvasGeometry = digest('canvas-geometry', b.engine, canvasEpoch, hw.gpu.vendor, group);
  let canvasText = digest('canvas-text', b.engine, canvasEpoch, d.os, s.osTextEpoch);
  let audio = digest('audio', b.engine, audioEpoch, group, arch);
  let webglParams = digest('webgl-params', b.engine, webglEpoch, hw.gpu.model, d.os);
  let cores = b.engine === 'webkit' ? Math.min(hw.cores, 8) : hw.cores;

  // Anti-fingerprinting noise: Brave farbles per browser run (≈ per day of use), Safari private
  // browsing (Advanced Fingerprinting Protection) and Firefox private windows (fingerprinting
  // protection) randomise canvas (Safari also audio) per private session.
  const noisy = b.kind === 'brave' || (visit.private && (b.kind === 'safari' || b.engine === 'gecko'));
  if (b.kind === 'brave') {
    const farble = new Rng(seed, 'farble', b.index, visit.private ? `p${visit.session}` : Math.floor(day));
    canvasGeometry = farble.hex(32);
    canvasText = farble.hex(32);
    audio = farble.hex(32);
    webglParams = farble.hex(32);
    cores = farble.int(2, hw.cores);
  } else if (visit.private && b.kind === 'safari') {
    const noise = new Rng(seed, 'private-noise', b.index, visit.session);
    canvasGeometry = noise.hex(32);
    canvasText = noise.hex(32);
    audio = noise.hex(32);
  } else if (visit.private && b.engine === 'gecko') {
    const noise = new Rng(seed, 'private-noise', b.index, visit.session);
    canvasGeometry = noise.hex(32);
    canvasText = noise.hex(32);
  }

  const mobile = d.cls === 'phone' || (d.cls === 'tablet' && d.os === 'android');
  const desktopClass = d.cls === 'laptop' || d.cls === 'desktop' || d.os === 'ipados';
  const webgl = webglStrings(b);

  const signals: Signals = {
    user_agent: userAgent(b, s),
    platform: navigatorPlatform(b),
    vendor: b.engine === 'blink' ? 'Google Inc.' : b.engine === 'webkit' ? 'Apple Computer, Inc.' : '',
    vendor_flavors: b.engine === 'blink' ? (b.kind === 'samsung' ? ['chrome', 'samsungAr'] : ['chrome']) : b.kind === 'safari' && d.os === 'macos' ? ['safari'] : [],
    languages: navigatorLanguages,
    timezone: tz.tz,
    timezone_offset: tz.offset,
    screen: { width, height, color_depth: b.kind === 'safari' && d.os === 'macos' && hw.p3 ? 30 : 24, pixel_ratio: dpr },
    hardware_concurrency: cores,
    touch: hw.touchPoints > 0 || d.cls === 'phone'
      ? { max_touch_points: Math.max(hw.touchPoints, 5), touch_event: true, touch_start: true }
      : { max_touch_points: 0, touch_event: false, touch_start: false },
    color_gamut: hw.p3 ? 'p3' : 'srgb',
    contrast: 0,
    reduced_motion: d.reducedMotion,
    reduced_transparency: false,
    forced_colors: d.forcedColors,
    inverted_colors: false,
    monochrome: 0,
    hdr: hw.hdr,
    math: digest('math', b.engine, b.engine === 'webkit' ? group : '', arch),
    storage: { session_storage: true, local_storage: true, indexed_db: true, open_database: false, cookies: true },
    plugins: desktopClass ? PDF_PLUGINS : [],
    pdf_viewer_enabled: desktopClass,
    canvas: { winding: true, geometry: canvasGeometry, text: canvasText },
    webgl: { vendor: webgl.vendor, renderer: webgl.renderer, params: webglParams, extensions: digest('webgl-extensions', b.engine, webglEpoch, hw.gpu.vendor, d.os) },
    audio,
    fonts,
    font_preferences: digest('font-preferences', b.engine, d.os, s.osTextEpoch, cjk),
    architecture: arch,
    apple_pay: b.kind === 'safari' ? (d.os === 'macos' ? 0 : 1) : -1,
    color_scheme: dark ? 'dark' : 'light',
    automation: { webdriver: false, headless_ua: false, globals: [] },
    // As the agent reports it (src/agent/signals/incognito.ts) in today's browsers: Chromium
    // (since 138) reports the same quota in both modes, usage + 10 GiB, so neither the disk
    // size nor the mode shows in it and the agent does not send it; the private file system
    // tells the mode.
    incognito: { likely: visit.private, method: b.engine === 'blink' ? 'opfs_flush' : b.engine === 'gecko' ? 'service_worker' : 'opfs' },
    developer_tools: false,
    tampering: { canvas_mismatch: false, ua_platform_mismatch: false, overridden_natives: [] },
  };
  if (b.engine === 'blink') {
    signals.device_memory = hw.memory;
    if (d.os !== 'ios' && d.os !== 'ipados') {
      const brand = BRAND[b.kind] ?? 'Google Chrome';
      signals.ua_data = {
        brands: [brand, 'Chromium', GREASE[s.chromium % GREASE.length] as string].sort(),
        mobile,
        platform: d.os === 'windows' ? 'Windows' : d.os === 'macos' ? 'macOS' : d.os === 'android' ? 'Android' : d.os === 'chromeos' ? 'Chrome OS' : 'Linux',
      };
    }
  }

  // About 0.4% of visits lose one slow source to the agent's timeout.
  let signalErrors: Partial<Record<SignalName, string>> | undefined;
  if (visitRng.chance(0.004)) {
    const failed = visitRng.weighted<SignalName>([['audio', 2], ['fonts', 1], ['webgl', 1]]);
    delete signals[failed];
    signalErrors = { [failed]: 'timeout' };
  }

  return {
    signals,
    ...(signalErrors ? { signalErrors } : {}),
    noisy,
    ip: net.ip,
    network: net.kind,
    userAgentHeader: signals.user_agent ?? '',
    acceptLanguage: acceptLanguageOf(languages),
    url: `https://shop.example.com${visitRng.pick(SITE_PAGES)}`,
  };
}
