/**
 * The read caches (store/read-cache.ts) ask whether another process changed a cached table
 * once per event-loop callback: a request is read in a callback of its own, so it sees every
 * change committed before it was sent, while its several cached reads share one question.
 */
import { setImmediate as nextCallback } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { createReadCaches } from '../../src/service/store/read-cache.js';

function counted() {
  const state = { asked: 0, loads: 0, changed: false };
  const caches = createReadCaches({
    changedElsewhere: () => {
      state.asked++;
      const changed = state.changed;
      state.changed = false;
      return changed;
    },
  });
  const read = (key: string) =>
    caches.get('things', key, async () => {
      state.loads++;
      return `${key}@${state.loads}`;
    });
  return { state, read };
}

it('asks once for all the reads of one callback, and again in the next', async () => {
  const { state, read } = counted();
  await read('a');
  await read('b');
  await read('a');
  await read('c');
  expect(state.asked).toBe(1);
  await nextCallback();
  await read('a');
  await read('b');
  expect(state.asked).toBe(2);
  expect(state.loads).toBe(3); // a, b and c, each loaded once
});

it('asks once when the callback reads before its first await, as a request handler does', async () => {
  const { state, read } = counted();
  await new Promise<void>((resolve) => {
    setImmediate(() => {
      void (async () => {
        await read('a');
        await read('b');
        await read('c');
        resolve();
      })();
    });
  });
  expect(state.asked).toBe(1);
  expect(state.loads).toBe(3);
});

it('a change reported in a later callback drops what was cached', async () => {
  const { state, read } = counted();
  expect(await read('a')).toBe('a@1');
  await nextCallback();
  state.changed = true;
  expect(await read('a')).toBe('a@2');
  expect(await read('a')).toBe('a@2');
  await nextCallback();
  expect(await read('a')).toBe('a@2');
});
