/**
 * Slow and numerous clients cannot hold connections: a client that sends headers and then
 * trickles its body is cut after the request timeout, and connections beyond the limit are
 * closed at once.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/test-service.js';

function open(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.on('error', reject);
  });
}

/** Resolves with what the server sent once it closed the connection. */
function closed(socket: Socket): Promise<string> {
  let received = '';
  socket.on('data', (chunk) => (received += chunk.toString()));
  return new Promise((resolve) => socket.on('close', () => resolve(received)));
}

describe('hardening: request timeout and connection limit', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ config: { requestTimeoutMs: 300, maxConnections: 3 } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('cuts a client that sends headers and trickles its body', async () => {
    const socket = await open(t.url);
    const done = closed(socket);
    socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 60000\r\n\r\n');
    // One byte per tick of the server's idle timer: never idle, never complete.
    const trickle = setInterval(() => socket.writable && socket.write('x'), 50);
    try {
      const received = await done;
      expect(received).toMatch(/^(HTTP\/1\.1 408|$)/);
    } finally {
      clearInterval(trickle);
    }
  });

  it('closes connections beyond the limit', async () => {
    const held = await Promise.all([open(t.url), open(t.url), open(t.url)]);
    const extra = await open(t.url);
    await closed(extra);
    for (const s of held) s.destroy();
    // Back under the limit, requests are served.
    await expect.poll(async () => (await fetch(`${t.url}/health`)).status).toBe(200);
  });
});
