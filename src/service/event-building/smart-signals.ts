/**
 * Smart signals derived from the browser signals (pure). Each is present only when the
 * signals it needs were collected.
 */
import type { Signals } from '../../protocol/index.js';
import type { BotResult, TamperingDetails } from '../../events/v4-event.js';

/** Software renderers and hypervisor GPUs: a browser inside a VM, or a headless/GPU-less host. */
const VIRTUAL_GPU = /SwiftShader|llvmpipe|softpipe|VMware|VirtualBox|Parallels|Microsoft Basic Render|Hyper-V|QEMU|virgl|VirtIO|Bochs/i;

export function detectVirtualMachine(signals: Signals): boolean | undefined {
  if (!signals.webgl) return undefined;
  return VIRTUAL_GPU.test(`${signals.webgl.renderer} ${signals.webgl.vendor}`);
}

export interface TamperingVerdict {
  tampering: boolean;
  tampering_confidence: 'low' | 'medium' | 'high';
  tampering_details: TamperingDetails;
}

/**
 * Tampering: the browser lies about itself. Indicators: the UA disagrees with the platform
 * (agent check), built-ins whose source is not native (overridden APIs), and the UA header
 * disagreeing with navigator.userAgent (a spoofing extension changes only one of them).
 * anomaly_score = share of the indicators that fired (0..1).
 */
export function detectTampering(signals: Signals, userAgentHeader: string | undefined): TamperingVerdict | undefined {
  const t = signals.tampering;
  if (!t) return undefined;
  const indicators = [t.ua_platform_mismatch, t.overridden_natives.length > 0];
  if (userAgentHeader && signals.user_agent) indicators.push(userAgentHeader !== signals.user_agent);
  const fired = indicators.filter(Boolean).length;
  return {
    tampering: fired > 0,
    // No indicator among all checks, or several agreeing, are both strong statements.
    tampering_confidence: fired === 1 ? 'medium' : 'high',
    tampering_details: {
      anomaly_score: Math.round((fired / indicators.length) * 100) / 100,
      // Anti-detect browsers patch natives and also randomise canvas or the platform.
      anti_detect_browser: t.overridden_natives.length > 0 && (t.canvas_mismatch || t.ua_platform_mismatch),
    },
  };
}

/** Privacy-focused settings: canvas noise injection (Brave, Firefox resistFingerprinting, extensions) or cookies off. */
export function detectPrivacySettings(signals: Signals): boolean | undefined {
  const canvasNoise = signals.tampering?.canvas_mismatch;
  const cookiesOff = signals.storage ? !signals.storage.cookies : undefined;
  if (canvasNoise === undefined && cookiesOff === undefined) return undefined;
  return !!canvasNoise || !!cookiesOff;
}

/** Weights of the suspect score: each smart signal that fired adds its weight. */
export const SUSPECT_WEIGHTS = {
  bot_bad: 10,
  tampering: 8,
  replayed: 5,
  virtual_machine: 4,
  developer_tools: 3,
  high_velocity: 3,
  incognito: 2,
  privacy_settings: 2,
} as const;

/** Events of one visitor in 5 minutes from which the velocity counts as suspicious. */
export const HIGH_VELOCITY_EVENTS_5_MIN = 20;

export function suspectScore(s: {
  bot?: BotResult;
  tampering?: boolean;
  replayed?: boolean;
  virtual_machine?: boolean;
  developer_tools?: boolean;
  incognito?: boolean;
  privacy_settings?: boolean;
  events5Minutes?: number;
}): number {
  const w = SUSPECT_WEIGHTS;
  return (
    (s.bot === 'bad' ? w.bot_bad : 0) +
    (s.tampering ? w.tampering : 0) +
    (s.replayed ? w.replayed : 0) +
    (s.virtual_machine ? w.virtual_machine : 0) +
    (s.developer_tools ? w.developer_tools : 0) +
    ((s.events5Minutes ?? 0) >= HIGH_VELOCITY_EVENTS_5_MIN ? w.high_velocity : 0) +
    (s.incognito ? w.incognito : 0) +
    (s.privacy_settings ? w.privacy_settings : 0)
  );
}
