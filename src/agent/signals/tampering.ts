import { renderCanvas, takeGeometry } from './canvas.js';

// Built-ins that anti-fingerprinting tools and spoofing scripts replace: Class.member.
const NATIVES = (
  'HTMLCanvasElement.toDataURL HTMLCanvasElement.getContext CanvasRenderingContext2D.getImageData ' +
  'CanvasRenderingContext2D.measureText WebGLRenderingContext.getParameter AudioBuffer.getChannelData ' +
  'Date.getTimezoneOffset Function.toString Element.getBoundingClientRect Navigator.userAgent Navigator.platform ' +
  'Navigator.languages Navigator.hardwareConcurrency Navigator.webdriver Screen.width Screen.height'
).split(' ');

const osOf = (s = '') =>
  /win/i.test(s) ? 'w' : /mac|iphone|ipad|ipod/i.test(s) ? 'a' : /android|linux|cros|x11/i.test(s) ? 'l' : '';

const isNative = (f: unknown) =>
  typeof f != 'function' || /\{\s*\[native code\]\s*\}$/.test(Function.prototype.toString.call(f));

export const tampering = () => {
  const ua = osOf(navigator.userAgent);
  const others = [navigator.platform, (navigator as { userAgentData?: { platform: string } }).userAgentData?.platform].map(osOf);
  return {
    // Two drawings of the same picture differ only when something noises canvas reading.
    canvas_mismatch: (takeGeometry() ?? renderCanvas(false)) !== renderCanvas(false),
    ua_platform_mismatch: !!ua && others.some((o) => o && o != ua),
    overridden_natives: NATIVES.filter((name) => {
      const [cls, member] = name.split('.') as [string, string];
      // Typed as plain values: the getter is inspected, never called.
      const d: { get?: unknown; value?: unknown } | undefined = Object.getOwnPropertyDescriptor((window as never as Record<string, { prototype?: object }>)[cls]?.prototype || {}, member);
      return d && !isNative(d.get || d.value);
    }),
  };
};
