import { describe, expect, test } from 'vitest';
import { changeStatus, initialStatus, initialTokens, newKeyToken, rotateTokens } from '../../src/service/sealing/key-lifecycle.js';

describe('encryption key lifecycle', () => {
  test('a new key value is 32 random bytes in base64', () => {
    const token = newKeyToken();
    expect(Buffer.from(token, 'base64')).toHaveLength(32);
    expect(newKeyToken()).not.toBe(token);
  });

  test('a new key has a current and a next value, no previous one', () => {
    let n = 0;
    expect(initialTokens(() => `t${n++}`)).toEqual({ previous: null, current: 't0', next: 't1' });
  });

  test('rotation moves previous <- current <- next <- fresh', () => {
    const once = rotateTokens({ previous: null, current: 'a', next: 'b' }, 'c');
    expect(once).toEqual({ previous: 'a', current: 'b', next: 'c' });
    expect(rotateTokens(once, 'd')).toEqual({ previous: 'b', current: 'c', next: 'd' });
  });

  test('creation sets last_activated_at only for an enabled key', () => {
    expect(initialStatus('enabled', 5)).toEqual({ status: 'enabled', lastActivatedAt: 5, lastDeactivatedAt: null });
    expect(initialStatus('disabled', 5)).toEqual({ status: 'disabled', lastActivatedAt: null, lastDeactivatedAt: null });
  });

  test('disabling and enabling stamp their own time and keep the other', () => {
    const enabled = initialStatus('enabled', 1);
    const disabled = changeStatus(enabled, 'disabled', 2);
    expect(disabled).toEqual({ status: 'disabled', lastActivatedAt: 1, lastDeactivatedAt: 2 });
    expect(changeStatus(disabled, 'enabled', 3)).toEqual({ status: 'enabled', lastActivatedAt: 3, lastDeactivatedAt: 2 });
  });

  test('setting the present status changes no time', () => {
    const enabled = initialStatus('enabled', 1);
    expect(changeStatus(enabled, 'enabled', 9)).toBe(enabled);
  });
});
