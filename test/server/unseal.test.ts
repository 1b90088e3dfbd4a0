/**
 * Sealed results: our seal and unseal against an independent reference written here with
 * node:crypto and zlib, as another implementation of the format would read and write it.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { sealEventJson } from '../../src/events/sealed-result.js';
import { UnsealAggregateError, unsealEventsResponse } from '../../src/server/index.js';

const MAGIC = Buffer.from([0x9e, 0x85, 0xdc, 0xed]);
const event = { event_id: '1732000000000.AbCdEf', timestamp: 1732000000000, identification: { visitor_id: 'V1sitorIdV1sitorId00' }, tags: { plan: 'pro', ü: 'ß' } };
const eventJson = JSON.stringify(event);

function referenceSeal(json: string, key: Buffer): Buffer {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  const ciphertext = Buffer.concat([cipher.update(deflateRawSync(Buffer.from(json, 'utf8'))), cipher.final()]);
  return Buffer.concat([MAGIC, nonce, ciphertext, cipher.getAuthTag()]);
}

function referenceUnseal(sealed: Uint8Array, key: Buffer): string {
  const bytes = Buffer.from(sealed);
  expect(bytes.subarray(0, 4)).toEqual(MAGIC);
  const nonce = bytes.subarray(4, 16);
  const tag = bytes.subarray(bytes.length - 16);
  const decipher = createDecipheriv('aes-256-gcm', key, nonce);
  decipher.setAuthTag(tag);
  const compressed = Buffer.concat([decipher.update(bytes.subarray(16, bytes.length - 16)), decipher.final()]);
  return inflateRawSync(compressed).toString('utf8');
}

describe('sealed results', () => {
  const key = randomBytes(32);

  test('round trip: sealed bytes and their base64 open to the event', async () => {
    const sealed = await sealEventJson(eventJson, key);
    expect(await unsealEventsResponse(sealed, [{ key }])).toEqual(event);
    expect(await unsealEventsResponse(Buffer.from(sealed).toString('base64'), [{ key: key.toString('base64'), algorithm: 'aes-256-gcm' }])).toEqual(event);
  });

  test('a result sealed by the reference (node:crypto + zlib) opens with unsealEventsResponse', async () => {
    const sealed = referenceSeal(eventJson, key);
    expect(await unsealEventsResponse(sealed.toString('base64'), [{ key: key.toString('base64') }])).toEqual(event);
  });

  test('our sealed result opens with the reference reader', async () => {
    const sealed = await sealEventJson(eventJson, key);
    expect(referenceUnseal(sealed, key)).toBe(eventJson);
  });

  test('each seal uses a fresh nonce', async () => {
    const [a, b] = [await sealEventJson(eventJson, key), await sealEventJson(eventJson, key)];
    expect(Buffer.from(a.subarray(4, 16))).not.toEqual(Buffer.from(b.subarray(4, 16)));
  });

  test('tries every key: the right one among wrong ones opens it', async () => {
    const sealed = await sealEventJson(eventJson, key);
    expect(await unsealEventsResponse(sealed, [{ key: randomBytes(32) }, { key }])).toEqual(event);
  });

  test('no key fits: an aggregate error says why for each key', async () => {
    const sealed = await sealEventJson(eventJson, key);
    const error = await unsealEventsResponse(sealed, [
      { key: randomBytes(32) },
      { key: randomBytes(16) },
      { key: 'not base64!' },
    ]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsealAggregateError);
    expect((error as UnsealAggregateError).errors).toEqual([
      { keyIndex: 0, reason: 'decryption_failed', message: expect.stringContaining('wrong key') },
      { keyIndex: 1, reason: 'invalid_key', message: expect.any(String) },
      { keyIndex: 2, reason: 'invalid_key', message: expect.any(String) },
    ]);
    expect((error as Error).message).toContain('#0 decryption_failed');
  });

  test('a tampered byte anywhere after the header fails authentication', async () => {
    const sealed = await sealEventJson(eventJson, key);
    for (const at of [4, 16, sealed.length - 1]) {
      const tampered = Uint8Array.from(sealed);
      tampered[at]! ^= 0x01;
      const error = (await unsealEventsResponse(tampered, [{ key }]).catch((e: unknown) => e)) as UnsealAggregateError;
      expect(error.errors[0]!.reason).toBe('decryption_failed');
    }
  });

  test('a missing header, a plaintext that is not DEFLATE and a DEFLATE that is not JSON are told apart', async () => {
    const sealed = await sealEventJson(eventJson, key);
    const noMagic = Uint8Array.from(sealed);
    noMagic[0] = 0;
    const reason = async (bytes: Uint8Array) =>
      ((await unsealEventsResponse(bytes, [{ key }]).catch((e: unknown) => e)) as UnsealAggregateError).errors[0]!.reason;
    expect(await reason(noMagic)).toBe('invalid_header');
    expect(await reason(sealed.subarray(0, 20))).toBe('invalid_header');
    expect(await reason(sealRaw(Buffer.from([0xff, 0xff, 0xff, 0xff]), key))).toBe('invalid_deflate');
    expect(await reason(sealRaw(deflateRawSync('not json {'), key))).toBe('invalid_json');
  });

  test('no keys at all: an aggregate error with no entries', async () => {
    const error = await unsealEventsResponse(await sealEventJson(eventJson, key), []).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsealAggregateError);
    expect((error as UnsealAggregateError).errors).toEqual([]);
  });
});

/** The reference writer around an arbitrary plaintext (to build wrong plaintexts). */
function sealRaw(plaintext: Buffer, key: Buffer): Buffer {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([MAGIC, nonce, ciphertext, cipher.getAuthTag()]);
}
