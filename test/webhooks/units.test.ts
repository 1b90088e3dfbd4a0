/** Pure parts of webhooks: the address policy, backoff, the signature header and its verifier. */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { formatWebhookSignature, parseWebhookSignatures } from '../../src/events/webhook-signature.js';
import { isValidWebhookSignature, isValidWebhookSignatureAsync } from '../../src/server/index.js';
import { refusedAddressReason } from '../../src/service/webhooks/address-policy.js';
import { retryDelay } from '../../src/service/webhooks/backoff.js';
import { signWebhookBody } from '../../src/service/webhooks/signer.js';

describe('webhook address policy', () => {
  it.each([
    '127.0.0.1', '127.8.9.10', '::1', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', 'fc00::1', 'fd12::1',
    '169.254.169.254', '169.254.1.1', 'fe80::1', 'fd00:ec2::254', '0.0.0.0', '::', '224.0.0.1', 'ff02::1',
    '100.64.0.1', '100.127.255.255', '255.255.255.255', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '2002:7f00:1::1', '64:ff9b::7f00:1',
  ])('refuses %s', (address) => {
    expect(refusedAddressReason(address)).toMatch(/range|not an IP/);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows %s', (address) => {
    expect(refusedAddressReason(address)).toBeNull();
  });

  it('refuses what is not an address', () => {
    expect(refusedAddressReason('example.com')).toMatch(/not an IP address/);
  });
});

describe('retry backoff (full jitter)', () => {
  const policy = { baseMs: 1000, capMs: 60_000 };
  it('draws uniformly below base * 2^(failures-1), capped', () => {
    expect(retryDelay(1, policy, () => 0.999)).toBe(999);
    expect(retryDelay(3, policy, () => 0.5)).toBe(2000);
    expect(retryDelay(40, policy, () => 0.5)).toBe(30_000);
    expect(retryDelay(5, policy, () => 0)).toBe(0);
  });
});

describe('webhook signatures', () => {
  const body = '{"event_id":"1700000000000.abcdef"}';
  const secret = 'signing-key';
  const hex = createHmac('sha256', secret).update(body).digest('hex');

  it('the service signs as v1=<hex HMAC-SHA256>', () => {
    expect(signWebhookBody(body, secret)).toBe(`v1=${hex}`);
    expect(formatWebhookSignature(hex)).toBe(`v1=${hex}`);
  });

  it('parses several entries and ignores other versions', () => {
    expect(parseWebhookSignatures(`v1=AB12, v2=ffff,v1=cd34,garbage`)).toEqual(['ab12', 'cd34']);
  });

  it.each([
    ['sync', (i: Parameters<typeof isValidWebhookSignature>[0]) => Promise.resolve(isValidWebhookSignature(i))],
    ['async (Web Crypto)', isValidWebhookSignatureAsync],
  ])('%s: accepts any matching v1 entry, refuses others', async (_name, verify) => {
    expect(await verify({ header: `v1=${hex}`, data: body, secret })).toBe(true);
    expect(await verify({ header: `v1=${'0'.repeat(64)},v1=${hex}`, data: body, secret })).toBe(true);
    expect(await verify({ header: `v1=${hex}`, data: new TextEncoder().encode(body), secret })).toBe(true);
    expect(await verify({ header: `v1=${hex}`, data: `${body} `, secret })).toBe(false);
    expect(await verify({ header: `v1=${hex}`, data: body, secret: 'other' })).toBe(false);
    expect(await verify({ header: `v2=${hex}`, data: body, secret })).toBe(false);
    expect(await verify({ header: '', data: body, secret })).toBe(false);
  });
});
