/** Graceful shutdown: close() lets a request in flight finish, then refuses new connections. */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { countEvents } from '../../src/service/store/events.js';
import { identifyRequest } from '../helpers/identify-request.js';
import { createTestDatabase, ENGINES } from '../helpers/test-service.js';
import { createService } from '../../src/service/index.js';

describe.each(ENGINES)('graceful shutdown (%s)', (engine) => {
  it('finishes a request that is in flight when close() is called', async () => {
    const database = await createTestDatabase(engine);
    const service = await createService({ port: 0, logLevel: 'silent', ...database.config });
    try {
      const url = new URL(await service.listen());
      const body = JSON.stringify(identifyRequest(service.bootstrap.publicKey));
      const half = Math.floor(body.length / 2);

      // Send the headers and half of the body: the request is now in flight on the server.
      const socket = connect(Number(url.port), url.hostname);
      let response = '';
      socket.on('data', (d: Buffer) => (response += d.toString()));
      const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write(
        `POST / HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n` +
          body.slice(0, half),
      );
      // Let the server read the headers before it is told to close.
      await new Promise((resolve) => setTimeout(resolve, 100));

      let closed = false;
      const closing = service.app.close().then(() => (closed = true));
      await new Promise((resolve) => setTimeout(resolve, 100));
      // New connections are refused while the old request is still open...
      await expect(fetch(url)).rejects.toThrow();
      expect(closed).toBe(false);
      // ...and the request in flight completes normally once its body arrives.
      socket.write(body.slice(half));
      // The server answers, then ends the keep-alive connection because it is closing.
      await ended;
      await closing;
      expect(response).toMatch(/^HTTP\/1\.1 200 /);
      expect(response).toContain('"visitor_id"');
      expect(response.toLowerCase()).toContain('connection: close');
      expect(await countEvents(service.ctx.store)).toBe(1);
    } finally {
      await service.close();
      await database.drop();
    }
  });
});
