/** The delivery thread: the worker's sends go through it to a real HTTPS receiver. */
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { createThreadedSender, type ThreadedSender } from '../../src/service/webhooks/threaded-sender.js';
import { startReceiver, type Receiver } from './receiver.js';

let receiver: Receiver | undefined;
let sender: ThreadedSender | undefined;
afterEach(async () => {
  await sender?.close();
  await receiver?.close();
});

describe('threaded webhook sender', () => {
  it('sends from its thread: status, body and headers arrive as given', async () => {
    receiver = await startReceiver((_req, res, index) => res.writeHead(index === 0 ? 200 : 503).end('busy'));
    sender = createThreadedSender({ allowPrivateTargets: true, ca: [...rootCertificates, readFileSync(receiver.caFile, 'utf8')] });
    const first = await sender(receiver.url, '{"event_id":"1"}', { 'Content-Type': 'application/json', 'X-Test': 'a' });
    expect(first).toMatchObject({ ok: true, httpStatus: 200, error: null });
    const second = await sender(receiver.url, '{"event_id":"2"}', { 'Content-Type': 'application/json' });
    expect(second).toMatchObject({ ok: false, httpStatus: 503, error: 'HTTP 503: busy' });
    expect(receiver.requests.map((r) => r.body)).toEqual(['{"event_id":"1"}', '{"event_id":"2"}']);
    expect(receiver.requests[0]!.headers['x-test']).toBe('a');
  });

  it('keeps the SSRF policy in the thread', async () => {
    sender = createThreadedSender({ allowPrivateTargets: false });
    const result = await sender('https://127.0.0.1:1/hook', '{}', {});
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/target refused: .*loopback/);
  });

  it('fails the sends in flight when closed, and starts a new thread for the next send', async () => {
    // The receiver never answers: the send is in flight when the thread closes.
    receiver = await startReceiver(() => undefined);
    sender = createThreadedSender({ allowPrivateTargets: true, ca: [...rootCertificates, readFileSync(receiver.caFile, 'utf8')] });
    const inFlight = sender(receiver.url, '{}', {});
    // The new thread loads the sender (and its HTTP client) first: slow on a busy machine.
    await expect.poll(() => receiver!.requests.length, { timeout: 10_000 }).toBe(1);
    await sender.close();
    expect(await inFlight).toMatchObject({ ok: false, httpStatus: null, error: 'webhook delivery thread closed' });
    receiver.answer = (_req, res) => res.writeHead(204).end();
    expect(await sender(receiver.url, '{}', {})).toMatchObject({ ok: true, httpStatus: 204 });
  });
});
