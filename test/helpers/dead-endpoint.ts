import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A URL on 127.0.0.1 where nothing listens (connection refused at once): a dead endpoint. */
export async function deadEndpoint(): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}/`;
}
