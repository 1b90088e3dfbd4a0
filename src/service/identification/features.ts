/**
 * Signals -> comparable components (pure). Values are normalised strings, so a component is
 * compared by equality; fonts are kept as a set too, since an installed font adds one member
 * rather than replacing the value.
 */
import { hash } from 'node:crypto';
import type { Signals } from '../../protocol/index.js';
import type { StableSignalName } from '../../protocol/signals.js';
import { boundedMemo } from '../store/bounded-memo.js';
import { BLOCKING_KEYS, COMPONENT_NAMES, NETWORK_KEY, type ComponentName } from './components.js';

export type ComponentValues = Partial<Record<ComponentName, string>>;

export interface Features {
  values: ComponentValues;
  /** Detected fonts, sorted, when the agent sent them. */
  fonts?: string[];
  /** The agent detected a private (incognito) window: no stored token is expected. */
  privateMode: boolean;
  /** Hash of every component: two visits with the same exact hash look identical. */
  exactHash: string;
  /** Indexed lookup keys, `<name>:<hash>`, the exact hash included as `x:<hash>`. */
  blockingKeys: string[];
}

/** 96 bits of SHA-256, base64url: plenty against accidental collisions, short in indexes. One-shot hash(): no Hash object per call. */
export function shortHash(text: string): string {
  return hash('sha256', text, 'base64url').slice(0, 16);
}

/**
 * Version numbers out: `Chrome/120.0.6099.71` and `Chrome/121.0.0.0` compare equal. Every
 * candidate's user agents are compared with every visit's: the few user agents of a release
 * are each stripped once (bounded-memo.ts).
 */
export const stripVersions: (text: string) => string = boundedMemo((text) => text.replace(/\d+(?:[._]\d+)*/g, '#'), 2000);

/** GPU driver versions out of a WebGL renderer string (Windows ANGLE strings carry them). */
export function normaliseRenderer(renderer: string): string {
  return renderer.replace(/\b\d+(?:\.\d+){2,}\b/g, '#').replace(/\s+/g, ' ').trim();
}

const GREASE_BRAND = /^not[^a-z]*a[^a-z]*brand$/i;

const str = (value: unknown): string | undefined => {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value.length > 512 ? shortHash(value) : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
};

const list = (value: unknown): string | undefined =>
  Array.isArray(value) ? value.filter((v) => typeof v === 'string').join(',') : undefined;

/** Everything the agent may send is untrusted: read defensively, never throw. */
export function extractFeatures(signals: Signals): Features {
  const all: Signals = signals ?? {};
  // Components come only from the signals the table declares stable (src/protocol/signals.ts);
  // this type holds the code below to that.
  const s: Pick<Signals, StableSignalName> = all;
  const v: ComponentValues = {};
  const put = (name: ComponentName, value: string | undefined) => {
    if (value !== undefined && value !== '') v[name] = value;
  };
  const obj = <T>(value: T | undefined): T | undefined => (value && typeof value === 'object' ? value : undefined);

  if (typeof s.user_agent === 'string') {
    put('user_agent', str(s.user_agent));
    put('ua_family', str(stripVersions(s.user_agent)));
  }
  put('platform', str(s.platform));
  put('vendor', str(s.vendor));
  put('vendor_flavors', list(s.vendor_flavors));
  const uaData = obj(s.ua_data);
  if (uaData) {
    // GREASE brands ("Not_A Brand", "Not/A)Brand", ...) rotate with every Chromium release.
    const brands = Array.isArray(uaData.brands) ? uaData.brands.filter((b) => typeof b === 'string' && !GREASE_BRAND.test(b)) : undefined;
    put('ua_data', `${list(brands) ?? ''}|${str(uaData.mobile) ?? ''}|${str(uaData.platform) ?? ''}`);
  }
  put('languages', list(s.languages));
  if (s.timezone !== undefined || s.timezone_offset !== undefined) {
    put('timezone', `${str(s.timezone) ?? ''}|${str(s.timezone_offset) ?? ''}`);
  }
  const screen = obj(s.screen);
  if (screen) put('screen', `${str(screen.width)}x${str(screen.height)}|${str(screen.color_depth)}|${str(screen.pixel_ratio)}`);
  put('hardware_concurrency', str(s.hardware_concurrency));
  put('device_memory', str(s.device_memory));
  const touch = obj(s.touch);
  if (touch) put('touch', `${str(touch.max_touch_points)}|${str(touch.touch_event)}|${str(touch.touch_start)}`);
  put('color_gamut', str(s.color_gamut));
  const media = [s.contrast, s.reduced_motion, s.reduced_transparency, s.forced_colors, s.inverted_colors, s.monochrome, s.hdr, s.color_scheme];
  if (media.some((m) => m !== undefined)) put('media', media.map((m) => str(m) ?? '').join('|'));
  put('math', str(s.math));
  const storage = obj(s.storage);
  if (storage) {
    put('storage', [storage.session_storage, storage.local_storage, storage.indexed_db, storage.open_database, storage.cookies].map((b) => str(b) ?? '').join(''));
  }
  put('plugins', list(s.plugins));
  put('pdf_viewer', str(s.pdf_viewer_enabled));
  const canvas = obj(s.canvas);
  if (canvas) {
    put('canvas_winding', str(canvas.winding));
    put('canvas_geometry', str(canvas.geometry));
    put('canvas_text', str(canvas.text));
  }
  const webgl = obj(s.webgl);
  if (webgl) {
    put('webgl_vendor', str(webgl.vendor));
    if (typeof webgl.renderer === 'string') put('webgl_renderer', str(normaliseRenderer(webgl.renderer)));
    put('webgl_params', str(webgl.params));
    put('webgl_extensions', str(webgl.extensions));
  }
  put('audio', str(s.audio));
  let fonts: string[] | undefined;
  if (Array.isArray(s.fonts)) {
    fonts = [...new Set(s.fonts.filter((f): f is string => typeof f === 'string'))].sort();
    put('fonts', shortHash(fonts.join(',')));
  }
  put('font_preferences', str(s.font_preferences));
  put('architecture', str(s.architecture));
  put('apple_pay', str(s.apple_pay));

  const exactHash = shortHash(COMPONENT_NAMES.map((name) => `${name}=${v[name] ?? ''}`).join('\n'));
  const blockingKeys = [`x:${exactHash}`];
  for (const [key, names] of Object.entries(BLOCKING_KEYS)) {
    // A key built mostly from missing components would lump unrelated visitors together.
    const present = names.filter((name) => v[name] !== undefined).length;
    if (present * 2 < names.length) continue;
    blockingKeys.push(`${key}:${shortHash(names.map((name) => v[name] ?? '').join('\n'))}`);
  }
  const privateMode = !!obj(all.incognito)?.likely;
  return { values: v, ...(fonts ? { fonts } : {}), privateMode, exactHash, blockingKeys };
}

/**
 * The network keys of a visit: `n:` the hardware class on this network (look-alikes seen here),
 * and `p:` the network alone (only counted: how many visitors share it, home or carrier NAT).
 */
export function networkKeys(features: Features, network: string | null): string[] {
  if (!network) return [];
  return [`n:${shortHash([network, ...NETWORK_KEY.map((name) => features.values[name] ?? '')].join('\n'))}`, `p:${shortHash(network)}`];
}

/** Every key a visit's candidates are looked up by: its blocking keys and its network keys. */
export function lookupKeys(features: Features, network: string | null): string[] {
  return [...features.blockingKeys, ...networkKeys(features, network)];
}

/**
 * The version numbers of a user agent, group by group: `OS 17_1 ... Version/17.1` -> [[17, 1],
 * .., [17, 1], ..]. Remembered per user agent like stripVersions (shared: not to be changed).
 */
export const versionGroups: (userAgent: string) => readonly (readonly number[])[] = boundedMemo(
  (userAgent) => (userAgent.match(/\d+(?:[._]\d+)*/g) ?? []).map((group) => group.split(/[._]/).map(Number)),
  2000,
);

/**
 * True when `current` is an older release than `previous` of the same browser (their
 * version-stripped forms are equal): browsers and operating systems do not downgrade.
 */
export function isDowngrade(current: string, previous: string): boolean {
  if (current === previous || stripVersions(current) !== stripVersions(previous)) return false;
  const a = versionGroups(current);
  const b = versionGroups(previous);
  for (let g = 0; g < Math.min(a.length, b.length); g++) {
    const x = a[g]!;
    const y = b[g]!;
    for (let i = 0; i < Math.max(x.length, y.length); i++) {
      const xi = x[i] ?? 0;
      const yi = y[i] ?? 0;
      if (xi !== yi) return xi < yi;
    }
  }
  return false;
}
