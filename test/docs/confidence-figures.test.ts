/**
 * The confidence figures docs/identification.md states (the table between the
 * `confidence-figures` markers) are what the real service answers: a first visit, a visit with
 * its token, a token visit whose signals drifted a lot, and a token presented by another
 * device. The docs once promised 0.995 for a token visit while the service gave 0.945; this
 * test keeps them from drifting apart again.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdentifyResponse, Signals } from '../../src/protocol/index.js';
import { MATCH_CONFIDENCE } from '../../src/service/identification/matcher.js';
import { identifyRequest, postIdentify, sampleSignals } from '../helpers/identify-request.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { macSafari } from '../identification/fixtures.js';

const DOC = join(import.meta.dirname, '../../docs/identification.md');

/** `case key: description | score` rows of the marked table, as { key: score }. */
function statedFigures(markdown: string): Record<string, number> {
  const start = markdown.indexOf('<!-- confidence-figures:start -->');
  const end = markdown.indexOf('<!-- confidence-figures:end -->');
  if (start < 0 || end < start) throw new Error('docs/identification.md: confidence-figures markers not found');
  const figures: Record<string, number> = {};
  for (const line of markdown.slice(start, end).split('\n')) {
    const m = /^\|\s*([a-z-]+):[^|]*\|\s*([0-9.]+)\s*\|\s*$/.exec(line);
    if (m) figures[m[1]!] = Number(m[2]);
  }
  return figures;
}

const stated = statedFigures(readFileSync(DOC, 'utf8'));

describe('docs/identification.md states the confidence the service gives', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(async () => {
    await svc?.close();
  });

  /** One identification through the real HTTP service; returns the answer's JSON. */
  async function identify(signals: Signals, token?: string): Promise<IdentifyResponse> {
    const res = await postIdentify(svc.url, identifyRequest(svc.keys.publicKey, { signals, ...(token ? { token } : {}) }));
    expect(res.status).toBe(200);
    return res.json as IdentifyResponse;
  }

  it('the sentence that explains the token figure names the service\'s constants', () => {
    const text = readFileSync(DOC, 'utf8').replace(/\s+/g, ' ');
    const m = /gets \*\*([0-9.]+)\*\*, not more: ([0-9.]+) for the token, times ([0-9.]+) for the ID/.exec(text);
    expect(m, 'docs/identification.md: the sentence explaining the token figure').not.toBeNull();
    expect(Number(m![1])).toBe(stated.token);
    expect(Number(m![2])).toBe(MATCH_CONFIDENCE.token);
    expect(Number(m![3])).toBe(MATCH_CONFIDENCE.newClear);
  });

  it('the table lists the four cases, and nothing else', () => {
    expect(Object.keys(stated).sort()).toEqual(['first-visit', 'token', 'token-drifted', 'token-other-device']);
  });

  it('first-visit and token: the figures of a new browser and of its return with the token', async () => {
    const signals = sampleSignals({ fonts: ['Docs Figures Font'] });
    const first = await identify(signals);
    expect(first.visitor_found).toBe(false);
    expect(first.confidence.score).toBe(stated['first-visit']);
    expect(first.confidence.score).toBe(MATCH_CONFIDENCE.newClear);

    const again = await identify(signals, first.token);
    expect(again.visitor_id).toBe(first.visitor_id);
    expect(again.confidence.score).toBe(stated.token);
    // Not the bare token figure: the answer is also only as sure as the ID (created at newClear).
    expect(again.confidence.score).toBe(Math.round(MATCH_CONFIDENCE.token * MATCH_CONFIDENCE.newClear * 1000) / 1000);

    // Stays there on later token visits.
    const third = await identify(signals, again.token);
    expect(third.confidence.score).toBe(stated.token);
  });

  it('token-other-device: the token of one browser presented with another device\'s signals', async () => {
    // Hardware of its own (CPU cores), so that no earlier test's visitor is a compatible look-alike.
    const owner = await identify(sampleSignals({ fonts: ['Docs Owner Font'], hardware_concurrency: 12 }));
    const copied = await identify(macSafari(), owner.token);
    expect(copied.visitor_id).toBe(owner.visitor_id);
    expect(copied.confidence.comment).toMatch(/different-looking device/);
    expect(copied.confidence.score).toBe(stated['token-other-device']);
  });

  it('token-drifted: the token with signals that changed a lot on the same kind of browser', async () => {
    const before = sampleSignals({ fonts: ['Docs Drift Font'], hardware_concurrency: 16 });
    const owner = await identify(before);
    const drifted: Signals = {
      ...before,
      languages: ['ja-JP', 'ja'],
      timezone: 'Asia/Tokyo',
      timezone_offset: -540,
      screen: { width: 1366, height: 768, color_depth: 30, pixel_ratio: 2 },
      hardware_concurrency: 2,
      device_memory: 2,
      color_gamut: 'p3',
      math: 'other-math',
      plugins: [],
      canvas: { winding: true, geometry: 'other-geometry', text: 'other-text' },
      webgl: { vendor: 'Google Inc. (Intel)', renderer: 'ANGLE (Intel, Intel(R) UHD Graphics 620 Direct3D11 vs_5_0 ps_5_0)', params: 'other-params', extensions: 'other-ext' },
      audio: '35.7383295930922',
      fonts: ['Courier New', 'Tahoma'],
      font_preferences: 'other-fpref',
      color_scheme: 'dark',
    };
    const answer = await identify(drifted, owner.token);
    expect(answer.visitor_id).toBe(owner.visitor_id);
    expect(answer.confidence.comment).toBe('token valid, signals changed a lot');
    expect(answer.confidence.score).toBe(stated['token-drifted']);
  });
});
