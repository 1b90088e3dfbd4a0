import { afterEach, expect, test } from 'vitest';
import { collectSignals, SLICE_MS } from '../../src/agent/collect.js';
import { SOURCES } from '../../src/agent/signals/index.js';

const w = window as unknown as Record<string, unknown>;
afterEach(() => {
  delete w.OfflineAudioContext;
  delete (navigator as unknown as Record<string, unknown>).storage;
});

test('every source ends up either in signals or in errors, never both', async () => {
  const { signals, errors } = await collectSignals();
  for (const name of Object.keys(SOURCES)) expect(name in signals !== name in errors, name).toBe(true);
  expect(signals.user_agent).toBe(navigator.userAgent);
  expect(errors.canvas).toBe('unsupported'); // happy-dom has no canvas
});

test('a source that throws is recorded as error and does not break the others', async () => {
  Object.defineProperty(navigator, 'storage', {
    get() {
      throw new Error('broken');
    },
    configurable: true,
  });
  const { signals, errors } = await collectSignals();
  expect(errors.incognito).toBe('error');
  expect(signals.timezone).toBeTypeOf('string');
});

test('a source that never finishes is cut off at its time bound', async () => {
  // An audio stack whose rendering never completes (as Safari's in a hidden tab).
  w.OfflineAudioContext = function () {
    const node = () => ({ connect() {}, start() {}, frequency: {}, threshold: {}, knee: {}, ratio: {}, attack: {}, release: {} });
    return { createOscillator: node, createDynamicsCompressor: node, destination: {}, startRendering: () => new Promise(() => {}) };
  };
  const { signals, errors } = await collectSignals();
  expect(errors.audio).toBe('timeout');
  expect(signals.math).toBeTypeOf('string');
});

test('long synchronous work is cut into slices with a task between them; every source still reports', async () => {
  const busy = (ms: number) => {
    const t = performance.now();
    while (performance.now() - t < ms);
  };
  const original = { math: SOURCES.math, plugins: SOURCES.plugins };
  const Real = globalThis.MessageChannel;
  let yields = 0;
  globalThis.MessageChannel = class extends Real {
    constructor() {
      super();
      yields++;
    }
  };
  SOURCES.math = () => (busy(SLICE_MS * 2), 'slow');
  SOURCES.plugins = () => {
    busy(SLICE_MS * 2);
    throw new Error('broken');
  };
  try {
    const { signals, errors } = await collectSignals();
    expect(yields).toBeGreaterThanOrEqual(2);
    expect(signals.math).toBe('slow');
    expect(errors.plugins).toBe('error');
    for (const name of Object.keys(SOURCES)) expect(name in signals !== name in errors, name).toBe(true);
  } finally {
    globalThis.MessageChannel = Real;
    Object.assign(SOURCES, original);
  }
});
