/** Realistic agent requests for integration tests, and a tiny client that posts them like the agent. */
import { parseSetCookie, type SetCookie } from 'cookie';
import type { IdentifyRequest, Signals } from '../../src/protocol/index.js';
import { VISITOR_COOKIE_NAME } from '../../src/service/ingestion/visitor-cookie.js';

export const CHROME_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

export function sampleSignals(overrides: Partial<Signals> = {}): Signals {
  return {
    user_agent: CHROME_UA,
    platform: 'Win32',
    vendor: 'Google Inc.',
    vendor_flavors: ['chrome'],
    languages: ['en-US', 'en'],
    timezone: 'Europe/Berlin',
    timezone_offset: -60,
    screen: { width: 1920, height: 1080, color_depth: 24, pixel_ratio: 1 },
    hardware_concurrency: 8,
    device_memory: 8,
    touch: { max_touch_points: 0, touch_event: false, touch_start: false },
    color_gamut: 'srgb',
    math: 'm4th',
    storage: { session_storage: true, local_storage: true, indexed_db: true, open_database: false, cookies: true },
    ua_data: { brands: ['Chromium', 'Google Chrome'], mobile: false, platform: 'Windows' },
    plugins: ['PDF Viewer'],
    pdf_viewer_enabled: true,
    canvas: { winding: true, geometry: 'g30m', text: 't3xt' },
    webgl: { vendor: 'Google Inc. (NVIDIA)', renderer: 'ANGLE (NVIDIA, NVIDIA GeForce RTX 3060 Direct3D11 vs_5_0 ps_5_0)', params: 'p4r', extensions: 'ext' },
    audio: '124.04347527516074',
    fonts: ['Arial', 'Calibri', 'Segoe UI'],
    font_preferences: 'fpref',
    architecture: 255,
    color_scheme: 'light',
    automation: { webdriver: false, headless_ua: false, globals: [] },
    incognito: { likely: false, method: 'quota' },
    developer_tools: false,
    tampering: { canvas_mismatch: false, ua_platform_mismatch: false, overridden_natives: [] },
    ...overrides,
  };
}

export function identifyRequest(apiKey: string, overrides: Partial<IdentifyRequest> = {}): IdentifyRequest {
  return {
    v: 1,
    api_key: apiKey,
    url: 'https://shop.example.com/checkout',
    sdk: { platform: 'js', version: '4.0.0' },
    signals: sampleSignals(),
    ...overrides,
  };
}

/** POSTs like the agent: JSON as text/plain with `?ci=js/<version>`. */
export async function postIdentify(
  baseUrl: string,
  body: unknown,
  init: { headers?: Record<string, string>; rawBody?: string } = {},
): Promise<{ status: number; headers: Headers; json: any }> {
  const response = await fetch(`${baseUrl}/?ci=js/4.0.0`, {
    method: 'POST',
    headers: { 'Content-Type': 'text/plain', 'User-Agent': CHROME_UA, ...init.headers },
    body: init.rawBody ?? JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, headers: response.headers, json };
}

/** The visitor cookie (`--visitor-cookie`) a response sets, parsed as a browser reads it; undefined when it sets none. */
export function visitorCookieSet(headers: Headers): SetCookie | undefined {
  const line = headers.getSetCookie().find((c) => c.startsWith(`${VISITOR_COOKIE_NAME}=`));
  return line === undefined ? undefined : parseSetCookie(line);
}
