/**
 * Realistic signal sets (shapes as the agent sends them: hashes for canvas, audio, WebGL
 * parameters) and the drifts a real browser goes through.
 */
import type { Signals } from '../../src/protocol/index.js';

const WINDOWS_FONTS = [
  'Agency FB', 'Arial', 'Bahnschrift', 'Calibri', 'Cambria', 'Candara', 'Consolas', 'Constantia', 'Corbel',
  'Ebrima', 'Franklin Gothic', 'Gabriola', 'Gadugi', 'Georgia', 'HoloLens MDL2 Assets', 'Ink Free',
  'Javanese Text', 'Leelawadee UI', 'Lucida Console', 'MS Outlook', 'Marlett', 'Segoe Print', 'Segoe UI',
  'Segoe UI Emoji', 'Sitka', 'Sylfaen', 'Tahoma', 'Verdana',
];

/** Windows 11 laptop, Chrome 120, Intel GPU. */
export function windowsChrome(): Signals {
  return {
    user_agent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
    platform: 'Win32',
    vendor: 'Google Inc.',
    vendor_flavors: ['chrome'],
    languages: ['en-US', 'en'],
    timezone: 'America/New_York',
    timezone_offset: 300,
    screen: { width: 1920, height: 1080, color_depth: 24, pixel_ratio: 1 },
    hardware_concurrency: 8,
    device_memory: 8,
    touch: { max_touch_points: 0, touch_event: false, touch_start: false },
    color_gamut: 'srgb',
    contrast: 0,
    reduced_motion: false,
    hdr: false,
    color_scheme: 'light',
    math: 'm7Qx1bV0cW2pLk9e',
    storage: { session_storage: true, local_storage: true, indexed_db: true, open_database: false, cookies: true },
    ua_data: { brands: ['Chromium', 'Google Chrome', 'Not_A Brand'], mobile: false, platform: 'Windows' },
    plugins: ['Chrome PDF Viewer', 'Chromium PDF Viewer', 'Microsoft Edge PDF Viewer', 'PDF Viewer', 'WebKit built-in PDF'],
    pdf_viewer_enabled: true,
    canvas: { winding: true, geometry: 'c1GeoA93kslqP0x2', text: 'c1TxtW11zz8Lm4Qa' },
    webgl: {
      vendor: 'Google Inc. (Intel)',
      renderer: 'ANGLE (Intel, Intel(R) UHD Graphics 620 Direct3D11 vs_5_0 ps_5_0, D3D11-27.20.100.8681)',
      params: 'wpA8d7Ks0qLm3nX1',
      extensions: 'wxE4r2Tt9yUi0oP5',
    },
    audio: '124.04347527516074',
    fonts: WINDOWS_FONTS,
    font_preferences: 'fpW5k3j2h1g0f9d8',
    architecture: 255,
  };
}

/** MacBook Pro (Apple silicon), Safari 17. */
export function macSafari(): Signals {
  return {
    user_agent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15',
    platform: 'MacIntel',
    vendor: 'Apple Computer, Inc.',
    vendor_flavors: ['safari'],
    languages: ['de-DE', 'de', 'en'],
    timezone: 'Europe/Berlin',
    timezone_offset: -60,
    screen: { width: 1512, height: 982, color_depth: 30, pixel_ratio: 2 },
    hardware_concurrency: 8,
    touch: { max_touch_points: 0, touch_event: false, touch_start: false },
    color_gamut: 'p3',
    contrast: 0,
    reduced_motion: false,
    hdr: true,
    color_scheme: 'dark',
    math: 'mSaf0x1bV0cW2pLk',
    storage: { session_storage: true, local_storage: true, indexed_db: true, open_database: false, cookies: true },
    plugins: ['PDF Viewer', 'WebKit built-in PDF'],
    pdf_viewer_enabled: true,
    canvas: { winding: true, geometry: 'c1GeoMac77aa0b1c', text: 'c1TxtMacq2w3e4r5' },
    webgl: { vendor: 'Apple Inc.', renderer: 'Apple GPU', params: 'wpMac0d7Ks0qLm3n', extensions: 'wxMac4r2Tt9yUi0o' },
    audio: '35.10892717540264',
    fonts: ['American Typewriter', 'Arial', 'Avenir', 'Futura', 'Geneva', 'Gill Sans', 'Helvetica Neue', 'Menlo', 'Monaco', 'Optima', 'Palatino', 'Skia'],
    font_preferences: 'fpMacq1w2e3r4t5y',
    architecture: 127,
    apple_pay: 1,
  };
}

/** iPhone 14, iOS 17.1 Safari: every unit of this model and OS build sends exactly this. */
export function iphone(): Signals {
  return {
    user_agent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1',
    platform: 'iPhone',
    vendor: 'Apple Computer, Inc.',
    vendor_flavors: ['safari'],
    languages: ['en-GB'],
    timezone: 'Europe/London',
    timezone_offset: 0,
    screen: { width: 844, height: 390, color_depth: 24, pixel_ratio: 3 },
    hardware_concurrency: 4,
    touch: { max_touch_points: 5, touch_event: true, touch_start: true },
    color_gamut: 'p3',
    math: 'mIos0x1bV0cW2pLk',
    storage: { session_storage: true, local_storage: true, indexed_db: true, open_database: false, cookies: true },
    plugins: [],
    pdf_viewer_enabled: false,
    canvas: { winding: true, geometry: 'c1GeoIos0aa0b1c2', text: 'c1TxtIosq2w3e4r5' },
    webgl: { vendor: 'Apple Inc.', renderer: 'Apple GPU', params: 'wpIos0d7Ks0qLm3n', extensions: 'wxIos4r2Tt9yUi0o' },
    audio: '35.10893149',
    fonts: ['Arial', 'Avenir', 'Courier', 'Georgia', 'Helvetica Neue', 'Menlo', 'Times New Roman', 'Verdana'],
    font_preferences: 'fpIosq1w2e3r4t5y',
    architecture: 127,
    apple_pay: 1,
  };
}

// Drifts of one browser. Each returns a new object; the input is never changed.

/** Chrome 120 -> 121: the version in the UA, the WebGL extension list and the parameters change. */
export function upgradeChrome(s: Signals): Signals {
  return {
    ...s,
    user_agent: s.user_agent!.replace(/Chrome\/\d+/, (m) => `Chrome/${Number(m.slice(7)) + 1}`),
    webgl: { ...s.webgl!, extensions: `${s.webgl!.extensions}+up`, params: `${s.webgl!.params}+up` },
  };
}

/** OS update: user-agent OS version, canvas text rendering and default font widths change. */
export function osUpdate(s: Signals): Signals {
  return {
    ...s,
    user_agent: s.user_agent!.replace(/OS (\d+)_(\d+)/, (_m, a: string, b: string) => `OS ${a}_${Number(b) + 1}`),
    canvas: { ...s.canvas!, text: `${s.canvas!.text}+os` },
    font_preferences: `${s.font_preferences}+os`,
  };
}

/**
 * A new release after a reinstall or a long absence: browser and OS together, so the user agent,
 * canvas geometry and text, audio, WebGL parameters and default font widths all change at once.
 */
export function newRelease(s: Signals): Signals {
  const updated = osUpdate(upgradeChrome(s));
  return { ...updated, canvas: { ...updated.canvas!, geometry: `${s.canvas!.geometry}+up` }, audio: `${s.audio}+up` };
}

export const externalMonitor = (s: Signals): Signals => ({ ...s, screen: { width: 2560, height: 1440, color_depth: 24, pixel_ratio: 1.25 } });
export const installFont = (s: Signals, font = 'Fira Code'): Signals => ({ ...s, fonts: [...s.fonts!, font].sort() });
export const travel = (s: Signals): Signals => ({ ...s, timezone: 'Asia/Tokyo', timezone_offset: -540 });
export const editLanguages = (s: Signals): Signals => ({ ...s, languages: [...s.languages!, 'fr'] });

/** `value`, frozen deeply: a decision that changed anything in its input would throw. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
