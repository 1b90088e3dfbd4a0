import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { decryptKeyMaterial, encryptKeyMaterial } from '../../src/service/sealing/key-material.js';
import { MASTER_KEY_FILE, resolveMasterKey } from '../../src/service/master-key.js';

describe('key values at rest', () => {
  const master = randomBytes(32);
  const token = randomBytes(32).toString('base64');

  test('round trip, with no trace of the value in the stored form', () => {
    const stored = encryptKeyMaterial(master, 'ek_1', token);
    expect(stored).toMatch(/^v1\./);
    expect(stored).not.toContain(token);
    expect(decryptKeyMaterial(master, 'ek_1', stored)).toBe(token);
  });

  test('another master key, or the value moved to another key id, does not open', () => {
    const stored = encryptKeyMaterial(master, 'ek_1', token);
    expect(() => decryptKeyMaterial(randomBytes(32), 'ek_1', stored)).toThrow(/master key/);
    expect(() => decryptKeyMaterial(master, 'ek_2', stored)).toThrow(/cannot be decrypted/);
  });
});

describe('the master key', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-master-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  test('SQLite without the option: master.key is created once with mode 600 and read back', () => {
    const dir = tempDir();
    const first = resolveMasterKey({ dataDir: dir, engine: 'sqlite' });
    const file = join(dir, MASTER_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64')).toEqual(Buffer.from(first!));
    expect(resolveMasterKey({ dataDir: dir, engine: 'sqlite' })).toEqual(first);
  });

  test('the option wins and writes no file; PostgreSQL without it has no master key', () => {
    const dir = tempDir();
    const key = randomBytes(32);
    expect(Buffer.from(resolveMasterKey({ masterKey: key.toString('base64'), dataDir: dir, engine: 'postgres' })!)).toEqual(key);
    expect(() => statSync(join(dir, MASTER_KEY_FILE))).toThrow();
    expect(resolveMasterKey({ dataDir: dir, engine: 'postgres' })).toBeUndefined();
  });

  test('a master key that is not 32 bytes of base64 is refused with a clear message', () => {
    const dir = tempDir();
    expect(() => resolveMasterKey({ masterKey: 'c2hvcnQ=', dataDir: dir, engine: 'sqlite' })).toThrow(/TESSERA_MASTER_KEY.*32 bytes/);
    writeFileSync(join(dir, MASTER_KEY_FILE), 'garbage!');
    expect(() => resolveMasterKey({ dataDir: dir, engine: 'sqlite' })).toThrow(/master\.key must be the base64 of 32 bytes/);
  });
});
