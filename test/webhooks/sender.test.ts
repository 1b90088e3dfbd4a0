/**
 * The sender (sender.ts) against a real HTTPS receiver: what it sends, the Host header and
 * certificate check by name, the time limit, and how much of an answer it reads.
 */
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { isValidWebhookSignature } from '../../src/server/index.js';
import { createSender } from '../../src/service/webhooks/sender.js';
import { startReceiver, type Receiver } from './receiver.js';

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

const trusting = (r: Receiver, timeoutMs?: number) =>
  createSender({ allowPrivateTargets: true, ca: [...rootCertificates, readFileSync(r.caFile, 'utf8')], ...(timeoutMs ? { timeoutMs } : {}) });

describe('webhook sender', () => {
  it('posts the body with its headers; the certificate and Host are checked by name', async () => {
    receiver = await startReceiver();
    const send = trusting(receiver);
    const url = `https://localhost:${receiver.port}/hook?x=1`;
    for (const body of ['{"n":1}', '{"n":2}']) expect(await send(url, body, { 'Content-Type': 'application/json' })).toMatchObject({ ok: true, httpStatus: 200, error: null });
    expect(receiver.requests.map((r) => [r.path, r.body, r.headers.host, r.headers['content-type'], r.headers['content-length']])).toEqual([
      ['/hook?x=1', '{"n":1}', `localhost:${receiver.port}`, 'application/json', '7'],
      ['/hook?x=1', '{"n":2}', `localhost:${receiver.port}`, 'application/json', '7'],
    ]);
  });

  it('signs the body with the signing key it is given, and only then', async () => {
    receiver = await startReceiver();
    const send = trusting(receiver);
    await send(receiver.url, '{"signed":true}', {}, 'key-1');
    await send(receiver.url, '{"signed":false}', {}, null);
    const [signed, unsigned] = receiver.requests;
    const header = signed!.headers['fpjs-event-signature'] as string;
    expect(isValidWebhookSignature({ header, data: signed!.body, secret: 'key-1' })).toBe(true);
    expect(isValidWebhookSignature({ header, data: signed!.body, secret: 'key-2' })).toBe(false);
    expect(unsigned!.headers['fpjs-event-signature']).toBeUndefined();
  });

  it('checks the addresses of a host name on every send, also when they come from its cache', async () => {
    receiver = await startReceiver();
    const send = createSender({ allowPrivateTargets: false });
    for (let i = 0; i < 2; i++) {
      const result = await send(`https://localhost:${receiver.port}/hook`, '{}', {});
      expect(result).toMatchObject({ ok: false, httpStatus: null });
      expect(result.error).toMatch(/target refused: localhost resolves to .*loopback/);
    }
    expect(receiver.requests).toHaveLength(0);
  });

  it('fails on a certificate it does not trust', async () => {
    receiver = await startReceiver();
    const result = await createSender({ allowPrivateTargets: true })(receiver.url, '{}', {});
    expect(result).toMatchObject({ ok: false, httpStatus: null });
    expect(result.error).toMatch(/certificate/);
    expect(receiver.requests).toHaveLength(0);
  });

  it('gives up on a receiver that does not answer in time', async () => {
    receiver = await startReceiver(() => undefined);
    const result = await trusting(receiver, 300)(receiver.url, '{}', {});
    expect(result).toMatchObject({ ok: false, httpStatus: null, error: 'no answer within 300 ms' });
  });

  it('reads only the start of a long answer, and an endless one cannot hold it', async () => {
    receiver = await startReceiver((_req, res) => {
      res.writeHead(500);
      // Far more than the sender reads, and never ended.
      res.write(`${'e'.repeat(300)}${'x'.repeat(64 * 1024)}`);
    });
    // A send time limit far past the test's own: a sender that waited for the rest would time the test out.
    const result = await trusting(receiver, 60_000)(receiver.url, '{}', {});
    expect(result).toMatchObject({ ok: false, httpStatus: 500, error: `HTTP 500: ${'e'.repeat(200)}` });
  });

  it('takes a 2xx whose answer is endless as delivered, without reading it all', async () => {
    receiver = await startReceiver((_req, res) => {
      res.writeHead(200);
      res.write('x'.repeat(64 * 1024));
    });
    // A send time limit far past the test's own: a sender that waited for the rest would time the test out.
    const result = await trusting(receiver, 60_000)(receiver.url, '{}', {});
    expect(result).toMatchObject({ ok: true, httpStatus: 200, error: null });
  });

  it('keeps the status of an answer whose body stalls past the time limit', async () => {
    receiver = await startReceiver((_req, res) => {
      res.writeHead(503);
      res.write('busy, try later');
    });
    const result = await trusting(receiver, 300)(receiver.url, '{}', {});
    expect(result).toMatchObject({ ok: false, httpStatus: 503, error: 'HTTP 503: busy, try later' });
  });

  it('keeps its connections to a receiver for the next deliveries', async () => {
    receiver = await startReceiver();
    const send = trusting(receiver);
    for (let i = 0; i < 6; i++) expect(await send(receiver.url, `{"n":${i}}`, {})).toMatchObject({ ok: true });
    // A response settles its send just before undici frees the connection, so the next send
    // may take a second one; none opens a connection of its own.
    expect(new Set(receiver.requests.map((r) => r.remotePort)).size).toBeLessThanOrEqual(2);
  });
});
