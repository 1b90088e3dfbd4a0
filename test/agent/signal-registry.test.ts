/**
 * The agent's registry of sources and the protocol's signal table name the same signals. The
 * registry's type already requires a source per declared signal and rejects unknown keys;
 * this checks the same at run time, as the collected object is built from the registry's keys.
 */
import { expect, test } from 'vitest';
import { SOURCES } from '../../src/agent/signals/index.js';
import { SIGNAL_NAMES } from '../../src/protocol/signals.js';

test('every declared signal has a source, and every source a declared signal', () => {
  expect(Object.keys(SOURCES).sort()).toEqual([...SIGNAL_NAMES].sort());
});
