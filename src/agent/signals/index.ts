import type { Signals } from '../../protocol/index.js';
import { applePay } from './apple-pay.js';
import { architecture } from './architecture.js';
import { audio } from './audio.js';
import { automation } from './automation.js';
import { canvas } from './canvas.js';
import { colorGamut } from './color-gamut.js';
import { colorScheme } from './color-scheme.js';
import { contrast } from './contrast.js';
import { developerTools } from './developer-tools.js';
import { deviceMemory } from './device-memory.js';
import { fontPreferences } from './font-preferences.js';
import { fonts } from './fonts.js';
import { forcedColors } from './forced-colors.js';
import { hardwareConcurrency } from './hardware-concurrency.js';
import { hdr } from './hdr.js';
import { incognito } from './incognito.js';
import { invertedColors } from './inverted-colors.js';
import { languages } from './languages.js';
import { math } from './math.js';
import { monochrome } from './monochrome.js';
import { pdfViewer } from './pdf-viewer.js';
import { platform } from './platform.js';
import { plugins } from './plugins.js';
import { reducedMotion } from './reduced-motion.js';
import { reducedTransparency } from './reduced-transparency.js';
import { screenSize } from './screen.js';
import { storage } from './storage.js';
import { tampering } from './tampering.js';
import { timezoneOffset } from './timezone-offset.js';
import { timezone } from './timezone.js';
import { touch } from './touch.js';
import { uaData } from './ua-data.js';
import { userAgent } from './user-agent.js';
import { vendorFlavors } from './vendor-flavors.js';
import { vendor } from './vendor.js';
import { webgl } from './webgl.js';

/** A source returns its value (or a promise of it), or undefined when the browser lacks the feature. */
export type Source<K extends keyof Signals> = () => Signals[K] | undefined | Promise<Signals[K] | undefined>;

/**
 * Every signal source, by the protocol name of its value, in run order: the async ones
 * (audio, incognito) first so they run while the synchronous ones block the thread. The type
 * requires one source for each field of `Signals`.
 */
export const SOURCES: { [K in keyof Signals]-?: Source<K> } = {
  audio,
  incognito,
  user_agent: userAgent,
  platform,
  vendor,
  vendor_flavors: vendorFlavors,
  languages,
  timezone,
  timezone_offset: timezoneOffset,
  screen: screenSize,
  hardware_concurrency: hardwareConcurrency,
  device_memory: deviceMemory,
  touch,
  color_gamut: colorGamut,
  contrast,
  reduced_motion: reducedMotion,
  reduced_transparency: reducedTransparency,
  forced_colors: forcedColors,
  inverted_colors: invertedColors,
  monochrome,
  hdr,
  color_scheme: colorScheme,
  math,
  storage,
  ua_data: uaData,
  plugins,
  pdf_viewer_enabled: pdfViewer,
  canvas,
  webgl,
  fonts,
  font_preferences: fontPreferences,
  architecture,
  apple_pay: applePay,
  automation,
  developer_tools: developerTools,
  tampering,
};
