/**
 * The body of the delivery thread (threaded-sender.ts): runs the sender (sender.ts) for the
 * requests the service posts and answers each with its result. Its own event loop does the
 * HTTPS work (TLS, HTTP parsing, DNS checks), so deliveries do not compete with identification
 * requests for the service's main thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createSender, type SenderOptions } from './sender.js';

/** A request from the service: send `body` to `url` with `headers`. */
export interface SendRequest {
  id: number;
  url: string;
  body: string;
  headers: Record<string, string>;
}

const port = parentPort;
if (!port) throw new Error('sender-thread.ts runs in a worker thread (threaded-sender.ts)');
const send = createSender(workerData as SenderOptions);
port.on('message', ({ id, url, body, headers }: SendRequest) => {
  void send(url, body, headers).then((result) => port.postMessage({ id, result }));
});
