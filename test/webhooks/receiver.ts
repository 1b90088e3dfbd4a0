/**
 * A real HTTPS webhook receiver on 127.0.0.1 for tests: a self-signed certificate made with
 * openssl in a temp dir (its PEM doubles as the service's `webhookCaFile`), every request
 * recorded, answers scripted per request.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The sender's port: requests on one kept-alive connection share it. */
  remotePort: number | undefined;
}

/** Answers one request; the default answers 200. Leaving `res` open makes the sender time out. */
export type Answer = (req: ReceivedRequest, res: ServerResponse, index: number) => void;

export interface Receiver {
  url: string;
  /** Same certificate, reached by name (resolves to loopback). */
  port: number;
  caFile: string;
  requests: ReceivedRequest[];
  answer: Answer;
  close(): Promise<void>;
}

export const ok: Answer = (_req, res) => {
  res.writeHead(200).end('ok');
};

/** A self-signed certificate for 127.0.0.1 and localhost, valid one day. */
export function makeCertificate(): { dir: string; key: string; cert: string; caFile: string } {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-webhook-cert-'));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-days', '1',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ], { stdio: 'ignore' });
  return { dir, key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), caFile: join(dir, 'cert.pem') };
}

export async function startReceiver(answer: Answer = ok): Promise<Receiver> {
  const cert = makeCertificate();
  const requests: ReceivedRequest[] = [];
  const open = new Set<ServerResponse>();
  const receiver: Receiver = { url: '', port: 0, caFile: cert.caFile, requests, answer, close: () => Promise.resolve() };
  const server: Server = createServer({ key: cert.key, cert: cert.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), remotePort: req.socket.remotePort };
      requests.push(received);
      open.add(res);
      res.on('close', () => open.delete(res));
      receiver.answer(received, res, requests.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  receiver.port = typeof address === 'object' && address ? address.port : 0;
  receiver.url = `https://127.0.0.1:${receiver.port}/hook`;
  receiver.close = async () => {
    for (const res of open) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(cert.dir, { recursive: true, force: true });
  };
  return receiver;
}

/** Polls `check` until it returns a value other than undefined/false, at most `timeoutMs`. */
export async function waitFor<T>(check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
