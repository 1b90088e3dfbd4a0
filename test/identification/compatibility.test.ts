/**
 * Hard compatibility rules: stable hardware and OS signals one browser cannot change rule a
 * candidate out, however well the rest of the signals match; an upgrade forward is compatible.
 */
import { describe, expect, it } from 'vitest';
import type { Signals } from '../../src/protocol/index.js';
import { incompatibility, profileIncompatibility } from '../../src/service/identification/compatibility.js';
import { extractFeatures } from '../../src/service/identification/features.js';
import { decideWithoutToken, type Candidate } from '../../src/service/identification/matcher.js';
import { emptyProfile, updateProfile, type VisitorProfile } from '../../src/service/identification/profile.js';
import { externalMonitor, iphone, osUpdate, upgradeChrome, windowsChrome } from './fixtures.js';

const NETWORK = 'v4:203.0.113';
const DAY = 24 * 3600 * 1000;

function profileOf(...visits: Signals[]): VisitorProfile {
  let profile = emptyProfile();
  for (const s of visits) profile = updateProfile(profile, extractFeatures(s), NETWORK);
  return profile;
}

const check = (visit: Signals, ...seen: Signals[]) => incompatibility(extractFeatures(visit), profileOf(...seen));

describe('incompatibility', () => {
  it('the same browser, and its drift forward, are compatible', () => {
    expect(check(windowsChrome(), windowsChrome())).toBeNull();
    expect(check(upgradeChrome(windowsChrome()), windowsChrome())).toBeNull();
    expect(check(osUpdate(iphone()), iphone())).toBeNull();
    // A laptop on an external monitor: a computer's screen is not hardware.
    expect(check(externalMonitor(windowsChrome()), windowsChrome())).toBeNull();
  });

  it('another hardware class is incompatible: GPU, CPU cores, memory, a phone screen, platform', () => {
    const w = windowsChrome();
    expect(check({ ...w, webgl: { ...w.webgl!, renderer: 'ANGLE (NVIDIA, NVIDIA GeForce RTX 4060 Direct3D11 vs_5_0 ps_5_0)' } }, w)).toBe('webgl_renderer');
    expect(check({ ...w, hardware_concurrency: (w.hardware_concurrency ?? 8) * 2 }, w)).toBe('hardware_concurrency');
    expect(check({ ...w, device_memory: 2 }, w)).toBe('device_memory');
    const p = iphone();
    expect(check({ ...p, screen: { width: 932, height: 430, color_depth: 24, pixel_ratio: 3 } }, p)).toBe('screen');
    expect(check({ ...p, platform: 'iPad' }, p)).toBe('platform');
  });

  it('an older OS or browser release than the visitor already ran is incompatible; a value seen before is not', () => {
    const older = (s: Signals) => ({ ...s, user_agent: s.user_agent!.replace('OS 17_1', 'OS 16_7').replace('Version/17.1', 'Version/16.7') });
    expect(check(older(iphone()), iphone())).toBe('version_downgrade');
    expect(check(iphone(), older(iphone()))).toBeNull();
    expect(check(windowsChrome(), upgradeChrome(windowsChrome()))).toBe('version_downgrade');
  });

  it('Brave randomises CPU cores per run: cores are not compared for it', () => {
    const brave = (s: Signals, cores: number): Signals => ({ ...s, hardware_concurrency: cores, ua_data: { ...s.ua_data!, brands: ['Brave', 'Chromium'] } });
    expect(check(brave(windowsChrome(), 4), brave(windowsChrome(), 8))).toBeNull();
  });

  it('the matcher never links across an incompatibility, however strong the rest of the evidence', () => {
    const seen = iphone();
    const candidate: Candidate = { visitorId: 'SameNetworkPhone0000', firstSeenAt: DAY, lastSeenAt: 2 * DAY, lastTokenAt: null, profile: profileOf(seen, seen, seen) };
    const visit = { features: extractFeatures({ ...seen, hardware_concurrency: 6 }), network: NETWORK, now: 3 * DAY };
    expect(decideWithoutToken(visit, [candidate], {}).kind).toBe('new');
    const same = { ...visit, features: extractFeatures(seen) };
    expect(decideWithoutToken(same, [candidate], {}).kind).toBe('link');
  });

  it('between two profiles: every stable value one has shown must be among the other\'s; no older release', () => {
    const earlier = profileOf(windowsChrome(), windowsChrome());
    expect(profileIncompatibility(profileOf(windowsChrome()), earlier)).toBeNull();
    // A browser that upgraded since is the same browser; one on an older release is not.
    expect(profileIncompatibility(profileOf(upgradeChrome(windowsChrome())), earlier)).toBeNull();
    expect(profileIncompatibility(earlier, profileOf(upgradeChrome(windowsChrome())))).toBe('version_downgrade');
    // A value the first never had (4 cores, once), even beside matching ones.
    expect(profileIncompatibility(profileOf({ ...windowsChrome(), hardware_concurrency: 4 }, windowsChrome()), earlier)).toBe('hardware_concurrency');
    // On a phone the screen is hardware too; on a computer it is not.
    const phone = iphone();
    const otherScreen = { ...phone, screen: { ...phone.screen!, width: 932, height: 430 } };
    expect(profileIncompatibility(profileOf(otherScreen), profileOf(phone))).toBe('screen');
    expect(profileIncompatibility(profileOf(externalMonitor(windowsChrome())), earlier)).toBeNull();
  });
});
