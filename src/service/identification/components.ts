/**
 * The components the matcher compares, and how much each one says.
 *
 * `match` is roughly the log2 likelihood ratio that two visits agreeing on the component come
 * from the same browser (how discriminating the value is in a population: a font list says a
 * lot, a colour gamut very little). `mismatch` is the log2 penalty when they disagree: small
 * for values that drift on one browser (user-agent version, screen, timezone, languages),
 * large for values one browser cannot change (`veto`: architecture, platform, browser family).
 *
 * `kind` documents the stability class: `hard` never changes on one browser, `stable` changes
 * rarely (a GPU driver or browser upgrade), `drift` changes in normal use.
 */
export type ComponentKind = 'hard' | 'stable' | 'drift';

export interface ComponentSpec {
  kind: ComponentKind;
  match: number;
  mismatch: number;
  /** Disagreement rules a candidate out when no token vouches for it. */
  veto?: boolean;
}

export const COMPONENTS = {
  // Browser and OS identity, versions stripped.
  ua_family: { kind: 'hard', match: 2, mismatch: 20, veto: true },
  platform: { kind: 'hard', match: 1, mismatch: 20, veto: true },
  vendor: { kind: 'hard', match: 0.5, mismatch: 20, veto: true },
  ua_data: { kind: 'hard', match: 1, mismatch: 10, veto: true },
  architecture: { kind: 'hard', match: 0.5, mismatch: 20, veto: true },
  touch: { kind: 'hard', match: 1, mismatch: 10, veto: true },
  canvas_winding: { kind: 'hard', match: 0.1, mismatch: 10, veto: true },
  // Device level, rarely changing.
  hardware_concurrency: { kind: 'stable', match: 2, mismatch: 6 },
  device_memory: { kind: 'stable', match: 1, mismatch: 4 },
  webgl_vendor: { kind: 'stable', match: 1, mismatch: 8 },
  webgl_renderer: { kind: 'stable', match: 5, mismatch: 8 },
  webgl_params: { kind: 'stable', match: 3, mismatch: 2 },
  webgl_extensions: { kind: 'stable', match: 2, mismatch: 1 },
  canvas_geometry: { kind: 'stable', match: 5, mismatch: 4 },
  audio: { kind: 'stable', match: 4, mismatch: 3 },
  math: { kind: 'stable', match: 1.5, mismatch: 3 },
  fonts: { kind: 'stable', match: 8, mismatch: 4 },
  vendor_flavors: { kind: 'stable', match: 0.5, mismatch: 3 },
  plugins: { kind: 'stable', match: 1, mismatch: 2 },
  pdf_viewer: { kind: 'stable', match: 0.2, mismatch: 1 },
  // Drift-prone: browser upgrades, OS updates, monitors, travel, preferences.
  user_agent: { kind: 'drift', match: 1, mismatch: 0.3 },
  canvas_text: { kind: 'drift', match: 6, mismatch: 1.5 },
  font_preferences: { kind: 'drift', match: 3, mismatch: 1 },
  screen: { kind: 'drift', match: 3, mismatch: 1 },
  timezone: { kind: 'drift', match: 3, mismatch: 1 },
  languages: { kind: 'drift', match: 2, mismatch: 1 },
  color_gamut: { kind: 'drift', match: 0.5, mismatch: 0.5 },
  media: { kind: 'drift', match: 1, mismatch: 0.5 },
  storage: { kind: 'drift', match: 0.3, mismatch: 0.5 },
  apple_pay: { kind: 'drift', match: 0.3, mismatch: 0.5 },
} as const satisfies Record<string, ComponentSpec>;

export type ComponentName = keyof typeof COMPONENTS;

export const COMPONENT_NAMES = Object.keys(COMPONENTS) as ComponentName[];

/**
 * Blocking keys: subsets of the components, hashed and indexed. Every component is left
 * out of at least one key (and every pair of the upgrade-sensitive ones too), so a visit whose
 * token is gone still reaches its visitor after any single drift. `d` is the device with its
 * user's settings (screen, timezone, languages) and nothing a browser or OS release changes:
 * a release changes the user agent, canvas, audio and WebGL parameters at once, and the
 * hardware-only keys are crowded with identical devices, so without it a browser that came
 * back on a new release was often not among its candidates, nor were the look-alikes that it
 * then has to be told from.
 */
export const BLOCKING_KEYS: Record<string, readonly ComponentName[]> = {
  h: ['ua_family', 'platform', 'architecture', 'webgl_vendor', 'webgl_renderer', 'hardware_concurrency', 'device_memory', 'touch'],
  r: ['ua_family', 'canvas_geometry', 'audio', 'math', 'architecture'],
  f: ['fonts', 'webgl_renderer', 'platform', 'ua_family', 'touch', 'device_memory'],
  l: ['fonts', 'audio', 'hardware_concurrency', 'touch', 'webgl_params'],
  d: ['ua_family', 'platform', 'architecture', 'webgl_renderer', 'device_memory', 'touch', 'fonts', 'screen', 'timezone', 'languages'],
};

/**
 * The hardware class combined with the client's network (networkKey() in features.ts): finds
 * look-alikes seen on this network however crowded the fingerprint is elsewhere, which is what
 * tells identical phones on different home networks apart.
 */
export const NETWORK_KEY: readonly ComponentName[] = ['ua_family', 'platform', 'architecture', 'webgl_renderer', 'touch'];
