/**
 * The body of the delivery thread (threaded-sender.ts): runs the sender (sender.ts) for the
 * requests the service posts and answers each with its result. Its own event loop does the
 * HTTPS work (TLS, HTTP parsing, DNS checks), so deliveries do not compete with identification
 * requests for the service's main thread. Requests come in batches; the results of one turn of
 * this thread's event loop go back as one message.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createSender, type SenderOptions, type SendResult } from './sender.js';

/** A request from the service: send `body` to `url` with `headers`, signed with `signingKey` when set. */
export interface SendRequest {
  id: number;
  url: string;
  body: string;
  headers: Record<string, string>;
  signingKey?: string | null;
}

/** The result of request `id`. */
export interface SendResponse {
  id: number;
  result: SendResult;
}

const port = parentPort;
if (!port) throw new Error('sender-thread.ts runs in a worker thread (threaded-sender.ts)');
const send = createSender(workerData as SenderOptions);
let done: SendResponse[] = [];
const answer = () => {
  port.postMessage(done);
  done = [];
};
port.on('message', (requests: SendRequest[]) => {
  for (const { id, url, body, headers, signingKey } of requests) {
    void send(url, body, headers, signingKey).then((result) => {
      if (done.length === 0) setImmediate(answer);
      done.push({ id, result });
    });
  }
});
