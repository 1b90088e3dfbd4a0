/**
 * Every browser signal the agent sends, declared once: its wire name, value shape with bounds,
 * whether it is stable enough for identification, and its one-line doc. The rest is derived:
 * the `Signals` type below, the request body's JSON schema
 * (src/service/ingestion/request-schema.ts), the signals identification reads
 * (src/service/identification/features.ts), and the table in docs/protocol.md
 * (scripts/generate-signal-docs.ts). The agent's registry (src/agent/signals/index.ts) is
 * typed against `Signals`, so a signal declared here without a collector does not compile.
 *
 * A small table of typed descriptors rather than TypeBox: the project has no TypeBox
 * dependency, six shapes cover every signal, and a plain table is easy to render as docs.
 * The agent must import only types from this file (`import type`): the table is for the
 * service and the docs, and would otherwise grow the browser bundle.
 */

export type Shape =
  | { readonly kind: 'string'; readonly maxLength: number }
  | { readonly kind: 'number' }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'enum'; readonly values: readonly string[] }
  | { readonly kind: 'strings'; readonly maxItems: number; readonly maxLength: number }
  | { readonly kind: 'object'; readonly fields: Readonly<Record<string, Shape>>; readonly optional: readonly string[] };

export interface SignalSpec {
  readonly shape: Shape;
  /**
   * The value belongs to the browser and device rather than to the moment, so identification
   * compares it. The others feed smart signals (bot, private-window, developer-tools and
   * tampering detection); `incognito` also tells identification not to expect a stored token.
   */
  readonly stable: boolean;
  /** Safari and Firefox private windows randomise (part of) it per session; the matcher then skips those parts. */
  readonly noisyInPrivate?: true;
  /** One line for docs/protocol.md (Markdown). */
  readonly doc: string;
}

const str = (maxLength: number) => ({ kind: 'string', maxLength }) as const;
const num = { kind: 'number' } as const;
const bool = { kind: 'boolean' } as const;
const oneOf = <const V extends readonly string[]>(...values: V) => ({ kind: 'enum', values }) as const;
const strings = (maxItems: number, maxLength = 256) => ({ kind: 'strings', maxItems, maxLength }) as const;
/** An object whose fields are all required but the ones named in `optional`. */
// The optional names are a rest tuple: with none given it infers as [], where an element type would widen to every key.
const object = <const F extends Record<string, Shape>, const O extends readonly (keyof F & string)[]>(fields: F, ...optional: O) =>
  ({ kind: 'object', fields, optional }) as const;

export const SIGNALS = {
  user_agent: { shape: str(2048), stable: true, doc: '`navigator.userAgent`' },
  platform: { shape: str(256), stable: true, doc: '`navigator.platform`' },
  vendor: { shape: str(256), stable: true, doc: '`navigator.vendor`' },
  vendor_flavors: {
    shape: strings(64),
    stable: true,
    doc: 'browser-specific globals present (`chrome`, `safari`, `__crWeb`, `yandex`, …), sorted',
  },
  languages: { shape: strings(64), stable: true, doc: '`navigator.languages` (or `[navigator.language]`)' },
  timezone: { shape: str(128), stable: true, doc: 'IANA zone from `Intl`, e.g. `Europe/Paris`' },
  timezone_offset: {
    shape: num,
    stable: true,
    doc: 'minutes, the larger of the offsets of January 1st and July 1st (DST independent)',
  },
  screen: {
    shape: object({ width: num, height: num, color_depth: num, pixel_ratio: num }),
    stable: true,
    doc: 'CSS pixels, larger side first (rotation independent), pixel ratio rounded to 2 decimals',
  },
  hardware_concurrency: { shape: num, stable: true, doc: '`navigator.hardwareConcurrency`' },
  device_memory: { shape: num, stable: true, doc: '`navigator.deviceMemory`' },
  touch: {
    shape: object({ max_touch_points: num, touch_event: bool, touch_start: bool }),
    stable: true,
    doc: '`navigator.maxTouchPoints`, whether a `TouchEvent` can be created, whether `ontouchstart` exists',
  },
  color_gamut: { shape: oneOf('srgb', 'p3', 'rec2020'), stable: true, doc: 'the widest gamut the screen matches' },
  contrast: { shape: num, stable: true, doc: '`prefers-contrast`: 0 none, 1 more, -1 less, 10 custom' },
  reduced_motion: { shape: bool, stable: true, doc: '`prefers-reduced-motion: reduce` (missing when the browser knows neither value)' },
  reduced_transparency: {
    shape: bool,
    stable: true,
    doc: '`prefers-reduced-transparency: reduce` (missing when the browser knows neither value)',
  },
  forced_colors: { shape: bool, stable: true, doc: '`forced-colors: active` (missing when the browser knows neither value)' },
  inverted_colors: { shape: bool, stable: true, doc: '`inverted-colors: inverted` (missing when the browser knows neither value)' },
  monochrome: { shape: num, stable: true, doc: 'bits per pixel of a monochrome screen, 0 for color' },
  hdr: { shape: bool, stable: true, doc: '`dynamic-range: high` (missing when the browser knows neither value)' },
  math: { shape: str(256), stable: true, doc: 'hash of transcendental function results (engine, CPU and OS specific)' },
  storage: {
    shape: object({ session_storage: bool, local_storage: bool, indexed_db: bool, open_database: bool, cookies: bool }),
    stable: true,
    doc: 'availability of each storage',
  },
  ua_data: {
    shape: object({ brands: strings(32), mobile: bool, platform: str(128) }),
    stable: true,
    doc: '`navigator.userAgentData` without versions; brands sorted, without the rotating "Not A Brand"',
  },
  plugins: { shape: strings(256), stable: true, doc: 'plugin names, sorted' },
  pdf_viewer_enabled: { shape: bool, stable: true, doc: '`navigator.pdfViewerEnabled`' },
  canvas: {
    shape: object({ winding: bool, geometry: str(256), text: str(256) }),
    stable: true,
    noisyInPrivate: true,
    doc: 'even-odd winding support, and hashes of two drawings made separately (geometry is GPU/driver sensitive, text is font/OS sensitive)',
  },
  webgl: {
    shape: object({ vendor: str(512), renderer: str(512), params: str(256), extensions: str(256) }),
    stable: true,
    doc: 'unmasked vendor and renderer when the browser gives them, hashes of the parameter/precision values and of the sorted extension list',
  },
  audio: {
    shape: str(256),
    stable: true,
    noisyInPrivate: true,
    doc: 'sum of a slice of an `OfflineAudioContext` rendering (compressed triangle wave), as a string',
  },
  fonts: { shape: strings(1024, 128), stable: true, doc: 'installed fonts from a fixed list, found by canvas text measurement' },
  font_preferences: {
    shape: str(256),
    stable: true,
    doc: 'hash of the text widths of the generic families (serif, sans-serif, monospace, system-ui, …)',
  },
  architecture: { shape: num, stable: true, doc: 'top byte of a float32 NaN: 255 on x86, 127 on ARM' },
  apple_pay: { shape: num, stable: true, doc: '1 can pay, 0 cannot, -1 no Apple Pay, -2 refused' },
  color_scheme: { shape: oneOf('light', 'dark'), stable: true, doc: '`prefers-color-scheme`' },
  automation: {
    shape: object({ webdriver: bool, headless_ua: bool, globals: strings(128) }),
    stable: false,
    doc: '`navigator.webdriver`, "Headless" in the UA, names of automation globals and `<html>` attributes found (Selenium, PhantomJS, Nightmare, Puppeteer, Playwright, ChromeDriver\'s `$cdc_` keys, …)',
  },
  incognito: {
    shape: object({ likely: bool, method: str(128), quota_mb: num }, 'quota_mb'),
    stable: false,
    doc: '`likely` is the verdict of `method`: `opfs_flush` (Chromium 138+: flushes of the origin private file system take no time, it is in memory; no `quota_mb`), `quota` (older Chromium: storage quota below twice the JS heap limit), `service_worker` (Firefox: none in private windows), `opfs` (Safari: private mode refuses the origin private file system) or `none`',
  },
  developer_tools: { shape: bool, stable: false, doc: 'true when the window is more than 160 px larger than its viewport (a docked pane)' },
  tampering: {
    shape: object({ canvas_mismatch: bool, ua_platform_mismatch: bool, overridden_natives: strings(128) }),
    stable: false,
    doc: 'the same canvas drawn twice gave different pixels (noise injection); the OS named by the UA disagrees with `navigator.platform` or `userAgentData.platform`; names (`Class.member`) of canvas, WebGL, audio, navigator, screen and date built-ins whose code is not native',
  },
} as const satisfies Record<string, SignalSpec>;

type Simplify<T> = { [K in keyof T]: T[K] };

/** The TypeScript value of a shape. */
export type ValueOf<S extends Shape> = S extends { kind: 'string' }
  ? string
  : S extends { kind: 'number' }
    ? number
    : S extends { kind: 'boolean' }
      ? boolean
      : S extends { kind: 'enum'; values: readonly (infer V)[] }
        ? V
        : S extends { kind: 'strings' }
          ? string[]
          : S extends { kind: 'object'; fields: infer F extends Record<string, Shape>; optional: infer O extends readonly string[] }
            ? Simplify<{ [K in Exclude<keyof F, O[number]>]: ValueOf<F[K]> } & { [K in Extract<keyof F, O[number]>]?: ValueOf<F[K]> }>
            : never;

/**
 * Browser signals. Every key is optional: a source that failed or is unsupported is left out
 * (its error code may be listed in `IdentifyRequest.signal_errors`).
 */
export type Signals = { -readonly [K in keyof typeof SIGNALS]?: ValueOf<(typeof SIGNALS)[K]['shape']> };

export type SignalName = keyof Signals;

/** The signals identification compares (`stable: true`). */
export type StableSignalName = { [K in SignalName]: (typeof SIGNALS)[K]['stable'] extends true ? K : never }[SignalName];

export const SIGNAL_NAMES = Object.keys(SIGNALS) as SignalName[];
