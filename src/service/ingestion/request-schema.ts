/**
 * JSON schema of an `IdentifyRequest` (src/protocol), checked by Fastify's ajv before the
 * handler runs, so that every value the identification and event code reads has the type
 * the protocol promises. Unknown keys are allowed (a newer agent may send more signals).
 * `api_key` is optional here: its absence gets its own error code in the handler.
 */
import { MAX_LINKED_ID_LENGTH, MAX_URL_LENGTH, PROTOCOL_VERSION } from '../../protocol/index.js';

const str = (maxLength = 2048) => ({ type: 'string', maxLength }) as const;
const bool = { type: 'boolean' } as const;
const num = { type: 'number' } as const;
const strings = (maxItems = 512, maxLength = 256) => ({ type: 'array', maxItems, items: str(maxLength) }) as const;
const object = (properties: Record<string, unknown>, required: string[] = Object.keys(properties)) =>
  ({ type: 'object', properties, required }) as const;

export const signalsSchema = object(
  {
    user_agent: str(),
    platform: str(256),
    vendor: str(256),
    vendor_flavors: strings(64),
    languages: strings(64),
    timezone: str(128),
    timezone_offset: num,
    screen: object({ width: num, height: num, color_depth: num, pixel_ratio: num }),
    hardware_concurrency: num,
    device_memory: num,
    touch: object({ max_touch_points: num, touch_event: bool, touch_start: bool }),
    color_gamut: { type: 'string', enum: ['srgb', 'p3', 'rec2020'] },
    contrast: num,
    reduced_motion: bool,
    reduced_transparency: bool,
    forced_colors: bool,
    inverted_colors: bool,
    monochrome: num,
    hdr: bool,
    math: str(256),
    storage: object({ session_storage: bool, local_storage: bool, indexed_db: bool, open_database: bool, cookies: bool }),
    ua_data: object({ brands: strings(32), mobile: bool, platform: str(128) }),
    plugins: strings(256),
    pdf_viewer_enabled: bool,
    canvas: object({ winding: bool, geometry: str(256), text: str(256) }),
    webgl: object({ vendor: str(512), renderer: str(512), params: str(256), extensions: str(256) }),
    audio: str(256),
    fonts: strings(1024, 128),
    font_preferences: str(256),
    architecture: num,
    apple_pay: num,
    color_scheme: { type: 'string', enum: ['light', 'dark'] },
    automation: object({ webdriver: bool, headless_ua: bool, globals: strings(128) }),
    incognito: object({ likely: bool, method: str(128), quota_mb: num }, ['likely', 'method']),
    developer_tools: bool,
    tampering: object({ canvas_mismatch: bool, ua_platform_mismatch: bool, overridden_natives: strings(128) }),
  },
  [],
);

export const identifyRequestSchema = object(
  {
    v: { type: 'integer', enum: [PROTOCOL_VERSION] },
    api_key: str(256),
    url: str(MAX_URL_LENGTH),
    referrer: str(MAX_URL_LENGTH),
    linked_id: str(MAX_LINKED_ID_LENGTH),
    tags: {},
    token: str(4096),
    sdk: object(
      {
        platform: str(32),
        version: str(64),
        integrations: { type: 'array', maxItems: 16, items: object({ name: str(128), version: str(64) }) },
      },
      ['platform', 'version'],
    ),
    signals: signalsSchema,
    signal_errors: { type: 'object', additionalProperties: str(256) },
  },
  ['v', 'url', 'sdk', 'signals'],
);
