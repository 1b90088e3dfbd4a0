/**
 * Attribute distributions the population is drawn from. Figures are rounded approximations of
 * public statistics (StatCounter Global Stats 2024-2025 for OS/browser/screen shares, the Steam
 * Hardware & Software Survey and WebGL reports for GPUs, vendor spec sheets for phone screens);
 * bench/accuracy/README.md lists the sources and the assumptions made where no data exists.
 * IP blocks are synthetic (documentation-style) and only model who shares an address.
 */
import type { Weighted } from './prng.js';

export type OsFamily = 'windows' | 'macos' | 'linux' | 'chromeos' | 'android' | 'ios' | 'ipados';
export type BrowserKind = 'chrome' | 'edge' | 'firefox' | 'safari' | 'samsung' | 'opera' | 'brave';
export type Engine = 'blink' | 'gecko' | 'webkit';
export type Gpu = { vendor: string; model: string };

export interface Country {
  code: string;
  /** Relative share of the simulated site's audience. */
  weight: number;
  /** IANA zone and its Date#getTimezoneOffset maximum of January/July (minutes). */
  timezones: Weighted<{ tz: string; offset: number }>;
  /** navigator.languages as Chromium reports them. */
  languages: Weighted<string[]>;
  /** Synthetic first octet(s) for the country's residential, mobile and hotel addresses. */
  ipBlock: number;
}

const tz = (tzName: string, offset: number) => ({ tz: tzName, offset });

export const COUNTRIES: readonly Country[] = [
  { code: 'US', weight: 24, ipBlock: 23, timezones: [[tz('America/New_York', 300), 47], [tz('America/Chicago', 360), 29], [tz('America/Denver', 420), 7], [tz('America/Phoenix', 420), 2], [tz('America/Los_Angeles', 480), 15]],
    languages: [[['en-US'], 55], [['en-US', 'en'], 35], [['es-US', 'es', 'en-US', 'en'], 7], [['en-GB', 'en'], 3]] },
  { code: 'IN', weight: 9, ipBlock: 49, timezones: [[tz('Asia/Kolkata', -330), 100]],
    languages: [[['en-US', 'en'], 45], [['en-IN', 'en'], 35], [['hi-IN', 'hi', 'en-US', 'en'], 20]] },
  { code: 'BR', weight: 7, ipBlock: 177, timezones: [[tz('America/Sao_Paulo', 180), 85], [tz('America/Manaus', 240), 15]],
    languages: [[['pt-BR', 'pt'], 75], [['pt-BR'], 15], [['pt-BR', 'pt', 'en-US', 'en'], 10]] },
  { code: 'DE', weight: 7, ipBlock: 91, timezones: [[tz('Europe/Berlin', -60), 100]],
    languages: [[['de-DE', 'de'], 55], [['de-DE', 'de', 'en-US', 'en'], 30], [['de'], 10], [['en-US', 'en'], 5]] },
  { code: 'GB', weight: 6, ipBlock: 81, timezones: [[tz('Europe/London', 0), 100]],
    languages: [[['en-GB', 'en'], 60], [['en-GB'], 25], [['en-US', 'en'], 15]] },
  { code: 'FR', weight: 5, ipBlock: 90, timezones: [[tz('Europe/Paris', -60), 100]],
    languages: [[['fr-FR', 'fr'], 65], [['fr-FR', 'fr', 'en-US', 'en'], 25], [['fr'], 10]] },
  { code: 'JP', weight: 5, ipBlock: 126, timezones: [[tz('Asia/Tokyo', -540), 100]],
    languages: [[['ja', 'en-US', 'en'], 30], [['ja-JP'], 45], [['ja'], 25]] },
  { code: 'ID', weight: 4, ipBlock: 36, timezones: [[tz('Asia/Jakarta', -420), 80], [tz('Asia/Makassar', -480), 20]],
    languages: [[['id-ID', 'id'], 55], [['id-ID', 'id', 'en-US', 'en'], 30], [['en-US', 'en'], 15]] },
  { code: 'MX', weight: 4, ipBlock: 187, timezones: [[tz('America/Mexico_City', 360), 85], [tz('America/Tijuana', 480), 15]],
    languages: [[['es-MX', 'es'], 60], [['es-419', 'es'], 25], [['es-MX', 'es', 'en-US', 'en'], 15]] },
  { code: 'ES', weight: 4, ipBlock: 88, timezones: [[tz('Europe/Madrid', -60), 95], [tz('Atlantic/Canary', 0), 5]],
    languages: [[['es-ES', 'es'], 70], [['es-ES', 'es', 'en-US', 'en'], 20], [['ca-ES', 'ca', 'es-ES', 'es'], 10]] },
  { code: 'IT', weight: 4, ipBlock: 93, timezones: [[tz('Europe/Rome', -60), 100]],
    languages: [[['it-IT', 'it'], 70], [['it-IT', 'it', 'en-US', 'en'], 25], [['it'], 5]] },
  { code: 'PL', weight: 3, ipBlock: 83, timezones: [[tz('Europe/Warsaw', -60), 100]],
    languages: [[['pl-PL', 'pl'], 60], [['pl', 'en-US', 'en'], 40]] },
  { code: 'CA', weight: 3, ipBlock: 24, timezones: [[tz('America/Toronto', 300), 60], [tz('America/Vancouver', 480), 20], [tz('America/Edmonton', 420), 10], [tz('America/Halifax', 240), 10]],
    languages: [[['en-CA', 'en'], 55], [['en-US', 'en'], 25], [['fr-CA', 'fr', 'en-CA', 'en'], 20]] },
  { code: 'TR', weight: 3, ipBlock: 85, timezones: [[tz('Europe/Istanbul', -180), 100]],
    languages: [[['tr-TR', 'tr'], 70], [['tr-TR', 'tr', 'en-US', 'en'], 30]] },
  { code: 'KR', weight: 3, ipBlock: 121, timezones: [[tz('Asia/Seoul', -540), 100]],
    languages: [[['ko-KR', 'ko'], 65], [['ko-KR', 'ko', 'en-US', 'en'], 35]] },
  { code: 'AU', weight: 2, ipBlock: 101, timezones: [[tz('Australia/Sydney', -600), 60], [tz('Australia/Melbourne', -600), 25], [tz('Australia/Perth', -480), 15]],
    languages: [[['en-AU', 'en'], 55], [['en-US', 'en'], 35], [['en-GB', 'en'], 10]] },
  { code: 'NL', weight: 2, ipBlock: 145, timezones: [[tz('Europe/Amsterdam', -60), 100]],
    languages: [[['nl-NL', 'nl'], 45], [['nl-NL', 'nl', 'en-US', 'en'], 40], [['en-US', 'en'], 15]] },
];

/** Device classes and their share of browsers (StatCounter 2024: mobile ~57%, desktop ~41%, tablet ~2%). */
export type DeviceClass = 'phone' | 'tablet' | 'laptop' | 'desktop';

export interface PhoneModel {
  name: string;
  os: 'android' | 'ios';
  /** CSS pixels, larger side first, and devicePixelRatio. */
  screen: [number, number];
  dpr: number;
  gpu: Gpu;
  cores: number;
  /** Chromium's navigator.deviceMemory (rounded, capped at 8). */
  memory: number;
  /** Model token in Samsung Internet's user agent. */
  uaModel: string;
  p3: boolean;
}

const apple = (model: string): Gpu => ({ vendor: 'Apple', model });

/** Phone models, weighted roughly by installed base (iOS ~28% and Android ~72% of phones worldwide, iOS ~55% in the US). */
export const PHONES: Weighted<PhoneModel> = [
  [{ name: 'iPhone 11', os: 'ios', screen: [896, 414], dpr: 2, gpu: apple('A13'), cores: 6, memory: 4, uaModel: 'iPhone', p3: true }, 5],
  [{ name: 'iPhone 12', os: 'ios', screen: [844, 390], dpr: 3, gpu: apple('A14'), cores: 6, memory: 4, uaModel: 'iPhone', p3: true }, 5],
  [{ name: 'iPhone 13', os: 'ios', screen: [844, 390], dpr: 3, gpu: apple('A15'), cores: 6, memory: 4, uaModel: 'iPhone', p3: true }, 7],
  [{ name: 'iPhone 14', os: 'ios', screen: [844, 390], dpr: 3, gpu: apple('A15'), cores: 6, memory: 6, uaModel: 'iPhone', p3: true }, 5],
  [{ name: 'iPhone 14 Pro', os: 'ios', screen: [852, 393], dpr: 3, gpu: apple('A16'), cores: 6, memory: 6, uaModel: 'iPhone', p3: true }, 4],
  [{ name: 'iPhone 15', os: 'ios', screen: [852, 393], dpr: 3, gpu: apple('A16'), cores: 6, memory: 6, uaModel: 'iPhone', p3: true }, 6],
  [{ name: 'iPhone 15 Pro Max', os: 'ios', screen: [932, 430], dpr: 3, gpu: apple('A17'), cores: 6, memory: 8, uaModel: 'iPhone', p3: true }, 4],
  [{ name: 'iPhone 16', os: 'ios', screen: [852, 393], dpr: 3, gpu: apple('A18'), cores: 6, memory: 8, uaModel: 'iPhone', p3: true }, 5],
  [{ name: 'iPhone SE 3', os: 'ios', screen: [667, 375], dpr: 2, gpu: apple('A15'), cores: 6, memory: 4, uaModel: 'iPhone', p3: true }, 2],
  [{ name: 'Galaxy A15', os: 'android', screen: [800, 360], dpr: 3, gpu: { vendor: 'ARM', model: 'Mali-G57 MC2' }, cores: 8, memory: 4, uaModel: 'SM-A155F', p3: false }, 7],
  [{ name: 'Galaxy A54', os: 'android', screen: [854, 384], dpr: 2.8125, gpu: { vendor: 'ARM', model: 'Mali-G68' }, cores: 8, memory: 8, uaModel: 'SM-A546B', p3: false }, 6],
  [{ name: 'Galaxy S23', os: 'android', screen: [780, 360], dpr: 3, gpu: { vendor: 'Qualcomm', model: 'Adreno (TM) 740' }, cores: 8, memory: 8, uaModel: 'SM-S911B', p3: true }, 4],
  [{ name: 'Galaxy S24', os: 'android', screen: [832, 384], dpr: 2.8125, gpu: { vendor: 'ARM', model: 'Xclipse 940' }, cores: 8, memory: 8, uaModel: 'SM-S921B', p3: true }, 4],
  [{ name: 'Pixel 7', os: 'android', screen: [915, 412], dpr: 2.625, gpu: { vendor: 'ARM', model: 'Mali-G710' }, cores: 8, memory: 8, uaModel: 'Pixel 7', p3: true }, 2],
  [{ name: 'Pixel 8', os: 'android', screen: [915, 412], dpr: 2.625, gpu: { vendor: 'ARM', model: 'Mali-G715' }, cores: 9, memory: 8, uaModel: 'Pixel 8', p3: true }, 2],
  [{ name: 'Redmi Note 12', os: 'android', screen: [873, 393], dpr: 2.75, gpu: { vendor: 'Qualcomm', model: 'Adreno (TM) 610' }, cores: 8, memory: 4, uaModel: '23021RAA2Y', p3: false }, 7],
  [{ name: 'Redmi 12C', os: 'android', screen: [800, 360], dpr: 2, gpu: { vendor: 'ARM', model: 'Mali-G52 MC2' }, cores: 8, memory: 4, uaModel: '22120RN86G', p3: false }, 6],
  [{ name: 'Galaxy A05s', os: 'android', screen: [800, 360], dpr: 3, gpu: { vendor: 'Qualcomm', model: 'Adreno (TM) 610' }, cores: 8, memory: 4, uaModel: 'SM-A057F', p3: false }, 5],
  [{ name: 'moto g54', os: 'android', screen: [915, 412], dpr: 2.625, gpu: { vendor: 'Imagination Technologies', model: 'PowerVR B-Series BXM-8-256' }, cores: 8, memory: 8, uaModel: 'moto g54 5G', p3: false }, 3],
  [{ name: 'OPPO A78', os: 'android', screen: [800, 360], dpr: 3, gpu: { vendor: 'ARM', model: 'Mali-G57 MC2' }, cores: 8, memory: 8, uaModel: 'CPH2565', p3: false }, 4],
];

export interface ComputerModel {
  os: OsFamily;
  cls: 'laptop' | 'desktop' | 'tablet';
  /** Native screen in CSS px at the default scaling, larger side first, and devicePixelRatio. */
  screen: [number, number];
  dpr: number;
  gpu: Gpu;
  cores: number;
  memory: number;
  touchPoints: number;
  arm: boolean;
  p3: boolean;
}

const intel = (model: string): Gpu => ({ vendor: 'Intel', model });
const nvidia = (model: string): Gpu => ({ vendor: 'NVIDIA', model });
const amd = (model: string): Gpu => ({ vendor: 'AMD', model });

/** Computers by OS (desktop OS share 2024: Windows ~72%, macOS ~15%, Linux ~4%, ChromeOS ~2%, unknown rest). */
export const COMPUTERS: Weighted<ComputerModel> = [
  [{ os: 'windows', cls: 'laptop', screen: [1536, 864], dpr: 1.25, gpu: intel('Intel(R) UHD Graphics'), cores: 8, memory: 8, touchPoints: 0, arm: false, p3: false }, 14],
  [{ os: 'windows', cls: 'laptop', screen: [1536, 864], dpr: 1.25, gpu: intel('Intel(R) Iris(R) Xe Graphics'), cores: 12, memory: 8, touchPoints: 0, arm: false, p3: false }, 12],
  [{ os: 'windows', cls: 'laptop', screen: [1366, 768], dpr: 1, gpu: intel('Intel(R) UHD Graphics 620'), cores: 4, memory: 8, touchPoints: 0, arm: false, p3: false }, 9],
  [{ os: 'windows', cls: 'laptop', screen: [1280, 800], dpr: 1.5, gpu: intel('Intel(R) Iris(R) Xe Graphics'), cores: 8, memory: 8, touchPoints: 10, arm: false, p3: false }, 4],
  [{ os: 'windows', cls: 'laptop', screen: [1536, 864], dpr: 1.25, gpu: amd('AMD Radeon(TM) Graphics'), cores: 16, memory: 8, touchPoints: 0, arm: false, p3: false }, 6],
  [{ os: 'windows', cls: 'laptop', screen: [1707, 1067], dpr: 1.5, gpu: { vendor: 'Qualcomm', model: 'Qualcomm(R) Adreno(TM) X1-85 GPU' }, cores: 12, memory: 8, touchPoints: 10, arm: true, p3: true }, 1],
  [{ os: 'windows', cls: 'desktop', screen: [1920, 1080], dpr: 1, gpu: nvidia('NVIDIA GeForce RTX 3060'), cores: 12, memory: 8, touchPoints: 0, arm: false, p3: false }, 6],
  [{ os: 'windows', cls: 'desktop', screen: [1920, 1080], dpr: 1, gpu: nvidia('NVIDIA GeForce GTX 1650'), cores: 8, memory: 8, touchPoints: 0, arm: false, p3: false }, 5],
  [{ os: 'windows', cls: 'desktop', screen: [2560, 1440], dpr: 1, gpu: nvidia('NVIDIA GeForce RTX 4060'), cores: 16, memory: 8, touchPoints: 0, arm: false, p3: false }, 4],
  [{ os: 'windows', cls: 'desktop', screen: [1920, 1080], dpr: 1, gpu: intel('Intel(R) UHD Graphics 630'), cores: 8, memory: 8, touchPoints: 0, arm: false, p3: false }, 7],
  [{ os: 'windows', cls: 'desktop', screen: [1920, 1080], dpr: 1, gpu: amd('AMD Radeon RX 6600'), cores: 12, memory: 8, touchPoints: 0, arm: false, p3: false }, 3],
  [{ os: 'macos', cls: 'laptop', screen: [1440, 900], dpr: 2, gpu: apple('M1'), cores: 8, memory: 8, touchPoints: 0, arm: true, p3: true }, 6],
  [{ os: 'macos', cls: 'laptop', screen: [1470, 956], dpr: 2, gpu: apple('M2'), cores: 8, memory: 8, touchPoints: 0, arm: true, p3: true }, 5],
  [{ os: 'macos', cls: 'laptop', screen: [1512, 982], dpr: 2, gpu: apple('M3 Pro'), cores: 12, memory: 8, touchPoints: 0, arm: true, p3: true }, 3],
  [{ os: 'macos', cls: 'desktop', screen: [2240, 1260], dpr: 2, gpu: apple('M3'), cores: 8, memory: 8, touchPoints: 0, arm: true, p3: true }, 1],
  [{ os: 'macos', cls: 'laptop', screen: [1440, 900], dpr: 2, gpu: intel('Intel(R) Iris(TM) Plus Graphics 655'), cores: 8, memory: 8, touchPoints: 0, arm: false, p3: true }, 2],
  [{ os: 'linux', cls: 'laptop', screen: [1920, 1080], dpr: 1, gpu: intel('Mesa Intel(R) UHD Graphics 620 (KBL GT2)'), cores: 8, memory: 8, touchPoints: 0, arm: false, p3: false }, 2],
  [{ os: 'linux', cls: 'desktop', screen: [2560, 1440], dpr: 1, gpu: amd('AMD Radeon RX 6700 XT (radeonsi, navi22, LLVM 17.0.6, DRM 3.57)'), cores: 16, memory: 8, touchPoints: 0, arm: false, p3: false }, 1],
  [{ os: 'chromeos', cls: 'laptop', screen: [1366, 768], dpr: 1, gpu: intel('Mesa Intel(R) UHD Graphics 600 (GLK 2)'), cores: 2, memory: 4, touchPoints: 0, arm: false, p3: false }, 2],
  [{ os: 'ipados', cls: 'tablet', screen: [1180, 820], dpr: 2, gpu: apple('M1'), cores: 8, memory: 8, touchPoints: 5, arm: true, p3: true }, 3],
  [{ os: 'ipados', cls: 'tablet', screen: [1080, 810], dpr: 2, gpu: apple('A13'), cores: 6, memory: 4, touchPoints: 5, arm: true, p3: true }, 2],
];

/** External monitors laptops get plugged into (CSS px, dpr). */
export const MONITORS: Weighted<{ screen: [number, number]; dpr: number }> = [
  [{ screen: [1920, 1080], dpr: 1 }, 50],
  [{ screen: [2560, 1440], dpr: 1 }, 25],
  [{ screen: [2560, 1440], dpr: 1.5 }, 15],
  [{ screen: [3440, 1440], dpr: 1 }, 10],
];

/** Browser shares per OS (StatCounter 2024, rounded). Brave reports itself as Chrome. */
export const BROWSERS_BY_OS: Record<OsFamily, Weighted<BrowserKind>> = {
  windows: [['chrome', 70], ['edge', 15], ['firefox', 7], ['opera', 5], ['brave', 3]],
  macos: [['chrome', 52], ['safari', 35], ['firefox', 6], ['edge', 4], ['brave', 3]],
  linux: [['chrome', 55], ['firefox', 38], ['brave', 7]],
  chromeos: [['chrome', 100]],
  android: [['chrome', 74], ['samsung', 18], ['firefox', 3], ['opera', 3], ['brave', 2]],
  ios: [['safari', 87], ['chrome', 10], ['firefox', 1], ['edge', 2]],
  ipados: [['safari', 85], ['chrome', 15]],
};

export const ENGINE_OF: Record<BrowserKind, Engine> = {
  chrome: 'blink', edge: 'blink', opera: 'blink', brave: 'blink', samsung: 'blink', firefox: 'gecko', safari: 'webkit',
};

/** Fonts found by text measurement, by OS install (only fonts on the agent's probe list matter). */
export const FONTS = {
  windows10: ['Arial', 'Arial Black', 'Bahnschrift', 'Calibri', 'Cambria', 'Candara', 'Comic Sans MS', 'Consolas', 'Constantia', 'Corbel', 'Courier New', 'Ebrima', 'Franklin Gothic Medium', 'Gabriola', 'Georgia', 'Impact', 'Leelawadee UI', 'Lucida Console', 'Lucida Sans Unicode', 'Malgun Gothic', 'Marlett', 'MS Gothic', 'Segoe Print', 'Segoe Script', 'Segoe UI', 'SimSun', 'Sylfaen', 'Tahoma', 'Times New Roman', 'Trebuchet MS', 'Verdana', 'Yu Gothic'],
  windows11Extra: ['Segoe Fluent Icons', 'Segoe UI Variable'],
  office: ['Aptos', 'Book Antiqua', 'Bookman Old Style', 'Century Gothic', 'Garamond', 'Haettenschweiler', 'Lucida Bright', 'Monotype Corsiva', 'MS Outlook'],
  adobe: ['Adobe Caslon Pro', 'Minion Pro', 'Myriad Pro', 'Trajan Pro'],
  macos: ['Arial', 'Avenir', 'Avenir Next', 'Courier New', 'Futura', 'Geneva', 'Georgia', 'Gill Sans', 'Helvetica', 'Helvetica Neue', 'Hiragino Sans', 'Menlo', 'Monaco', 'Optima', 'Palatino', 'PingFang SC', 'Times New Roman', 'Trebuchet MS', 'Verdana'],
  linux: ['Cantarell', 'DejaVu Sans', 'DejaVu Sans Mono', 'DejaVu Serif', 'Liberation Mono', 'Liberation Sans', 'Liberation Serif', 'Noto Sans', 'Noto Serif', 'Ubuntu'],
  chromeos: ['Arimo', 'Cousine', 'Noto Sans', 'Roboto', 'Tinos'],
  android: ['Coming Soon', 'Cutive Mono', 'Dancing Script', 'Droid Sans Mono', 'Noto Sans', 'Noto Serif', 'Roboto'],
  ios: ['Arial', 'Avenir', 'Avenir Next', 'Courier New', 'Futura', 'Georgia', 'Gill Sans', 'Helvetica', 'Helvetica Neue', 'Hiragino Sans', 'Menlo', 'Optima', 'Palatino', 'PingFang SC', 'Times New Roman', 'Trebuchet MS', 'Verdana'],
  /** User-installed extras that turn up on some machines. */
  hobbyist: ['Fira Code', 'JetBrains Mono', 'Roboto', 'Open Sans', 'Lato', 'Montserrat', 'Source Code Pro', 'Source Sans Pro'],
} as const;

/** Share of desktops with an office suite's fonts at the start (assumption, see README). */
export const OFFICE_FONT_SHARE = 0.45;
