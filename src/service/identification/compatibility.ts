/**
 * Hard compatibility rules (pure): stable hardware and OS signals that one browser cannot
 * change. A visit whose signals are incompatible with a visitor's is never linked to it by
 * signal evidence, however well the rest matches: a score adds evidence up, and partial
 * matches plus common signals (every phone of a model shares most of them) can outweigh one
 * hard difference. This is a rule, not a weight.
 *
 * Incompatible means, against every value the visitor has shown for the component:
 * - another browser or OS family: user agent without versions, platform, vendor, client-hints
 *   brands/platform, CPU architecture, touch support;
 * - another hardware class: GPU (WebGL vendor and renderer, driver versions removed), CPU
 *   cores, device memory, and on phones the screen (a phone has one built-in screen; a
 *   computer's changes with monitors, scaling and zoom);
 * - an older browser or OS release than the visitor already ran (releases only go forward: an
 *   upgrade is compatible, a downgrade is another device, e.g. another OS image or release).
 * Brave randomises `hardwareConcurrency` per run, so cores are not compared for it.
 */
import type { ComponentName } from './components.js';
import { isDowngrade, type Features } from './features.js';
import type { VisitorProfile } from './profile.js';

/** Components that never change on one browser of one device. */
export const HARD_COMPONENTS: readonly ComponentName[] = [
  'ua_family', 'platform', 'vendor', 'ua_data', 'architecture', 'touch',
  'webgl_vendor', 'webgl_renderer', 'hardware_concurrency', 'device_memory',
];

const handheldAgent = (userAgent: string): boolean => /Mobile|iPhone|Android/.test(userAgent);

/** A phone or a small Android tablet: the user agent says so (iPadOS presents itself as a Mac). */
export function isHandheld(features: Features): boolean {
  return handheldAgent(features.values.user_agent ?? '');
}


const farbles = (features: Features): boolean => /Brave/.test(features.values.ua_data ?? '');

/**
 * The first hard difference between a visit and a visitor (a component name, or
 * `version_downgrade`), or null when they are compatible. Components missing on either side
 * are not compared.
 */
export function incompatibility(features: Features, profile: VisitorProfile): string | null {
  const names = [...HARD_COMPONENTS, ...(isHandheld(features) ? (['screen'] as const) : [])];
  for (const name of names) {
    if (name === 'hardware_concurrency' && farbles(features)) continue;
    const value = features.values[name];
    const history = profile.c[name];
    if (value === undefined || !history || history.length === 0) continue;
    if (!history.includes(value)) return name;
  }
  const ua = features.values.user_agent;
  const newest = profile.c.user_agent?.[0];
  if (ua && newest && isDowngrade(ua, newest)) return 'version_downgrade';
  return null;
}

/**
 * The first hard difference between two visitors' profiles, or null: every stable hardware and
 * OS value `a` has shown must be among `b`'s (components missing on either side are not
 * compared, on phones the screen too), and no browser release `a` ran may be older than the
 * newest `b` ran. Used before two visitor IDs are taken for one browser (relink.ts): the rule
 * that holds for a visit holds for every visit the other ID has seen.
 */
export function profileIncompatibility(a: VisitorProfile, b: VisitorProfile): string | null {
  const handheld = (a.c.user_agent ?? []).some(handheldAgent);
  const names = [...HARD_COMPONENTS, ...(handheld ? (['screen'] as const) : [])];
  const brave = (a.c.ua_data ?? []).some((d) => /Brave/.test(d));
  for (const name of names) {
    if (name === 'hardware_concurrency' && brave) continue;
    const mine = a.c[name];
    const theirs = b.c[name];
    if (!mine || !theirs || mine.length === 0 || theirs.length === 0) continue;
    if (mine.some((value) => !theirs.includes(value))) return name;
  }
  const newest = b.c.user_agent?.[0];
  if (newest && (a.c.user_agent ?? []).some((ua) => isDowngrade(ua, newest))) return 'version_downgrade';
  return null;
}
