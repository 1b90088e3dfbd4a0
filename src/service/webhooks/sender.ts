/**
 * Sends one webhook request over HTTPS, safely: the host is resolved first and every address
 * it resolves to is checked (address-policy.ts) before connecting; the connection then goes
 * to the checked address itself, with the original host name for SNI, certificate checks and
 * the Host header, so a DNS answer that changes between check and connect (DNS rebinding)
 * cannot redirect it. Redirects are not followed (a 3xx is a failed attempt: following one would
 * reach an unchecked target). At most RESPONSE_LIMIT bytes of the answer are read.
 */
import { lookup } from 'node:dns/promises';
import { Agent, request, type RequestOptions } from 'node:https';
import { isIP } from 'node:net';
import { createSecureContext, type SecureContext } from 'node:tls';
import { refusedAddressReason } from './address-policy.js';

/** The receiver must answer within this time (contract: 2xx within 3 s). */
export const SEND_TIMEOUT_MS = 3000;
/** Enough of an error page for the attempt log; the rest is not read. */
const RESPONSE_LIMIT = 4096;
/** How much of a failed answer's body the attempt log keeps. */
const ERROR_SNIPPET = 200;

export interface SendResult {
  ok: boolean;
  /** Null when no HTTP answer came. */
  httpStatus: number | null;
  latencyMs: number;
  error: string | null;
}

export interface SenderOptions {
  allowPrivateTargets: boolean;
  /** Replaces the trusted CA list (the caller adds extra CAs to the default roots). */
  ca?: string[];
  timeoutMs?: number;
}

export type Sender = (url: string, body: string, headers: Record<string, string>) => Promise<SendResult>;

class Refused extends Error {}

export function createSender(opts: SenderOptions): Sender {
  const timeoutMs = opts.timeoutMs ?? SEND_TIMEOUT_MS;
  // Built once: a `ca` list given per request is parsed again for every connection (~150 root
  // certificates), which under load costs more than the 3 s the receiver is given.
  const secureContext = opts.ca ? createSecureContext({ ca: opts.ca }) : undefined;
  // Connections (and TLS sessions) are kept for the next delivery to the same receiver: a TLS
  // handshake per event costs more CPU than the identification that produced it. Pooled sockets
  // are keyed by the checked address and the server name, so reuse never bypasses the check.
  const agent = new Agent({ keepAlive: true, maxSockets: 16, maxFreeSockets: 16, timeout: 30_000 });

  /** The address to connect to, after checking every address the host resolves to. */
  async function resolveTarget(hostname: string): Promise<{ address: string; family: number }> {
    const addresses = isIP(hostname) ? [{ address: hostname, family: isIP(hostname) }] : await lookup(hostname, { all: true, verbatim: true });
    if (addresses.length === 0) throw new Error(`${hostname} does not resolve`);
    if (!opts.allowPrivateTargets) {
      for (const { address } of addresses) {
        const reason = refusedAddressReason(address);
        if (reason) throw new Refused(`target refused: ${hostname === address ? '' : `${hostname} resolves to `}${reason} (see --webhook-allow-private-targets)`);
      }
    }
    return addresses[0]!;
  }

  return async (url, body, headers) => {
    const started = performance.now();
    const result = (httpStatus: number | null, error: string | null): SendResult => ({
      ok: error === null,
      httpStatus,
      latencyMs: Math.round(performance.now() - started),
      error,
    });
    const abort = new AbortController();
    // Aborted from setImmediate, after this loop turn's I/O: an answer that arrived while this
    // process was busy (its event loop blocked) is read, not mistaken for a receiver timeout.
    const timer = setTimeout(() => setImmediate(() => abort.abort()), timeoutMs);
    try {
      const target = new URL(url);
      if (target.protocol !== 'https:') return result(null, 'target refused: webhook URLs must use https');
      const hostname = target.hostname.replace(/^\[(.*)\]$/, '$1');
      const timedOut = new Promise<never>((_, reject) =>
        abort.signal.addEventListener('abort', () => reject(new Error(`no answer within ${timeoutMs} ms`)), { once: true }),
      );
      // Only the race below observes it; a later timeout must not become an unhandled rejection.
      timedOut.catch(() => undefined);
      const { address, family } = await Promise.race([resolveTarget(hostname), timedOut]);
      let status: number | undefined;
      return await new Promise<SendResult>((resolve) => {
        // `secureContext` is honoured by tls.connect; @types/node's https options omit it.
        const options: RequestOptions & { secureContext?: SecureContext } = {
          host: address,
          family,
          port: target.port || 443,
          path: `${target.pathname}${target.search}`,
          method: 'POST',
          // SNI and certificate checks use the URL's host name; an IP literal is checked as an IP.
          servername: isIP(hostname) ? undefined : hostname,
          headers: { ...headers, Host: target.host, 'Content-Length': String(Buffer.byteLength(body)) },
          secureContext,
          agent,
          signal: abort.signal,
        };
        const req = request(
          options,
          (res) => {
            // The status line is the receiver's answer: a timeout while reading the body does not change it.
            status = res.statusCode ?? 0;
            const chunks: Buffer[] = [];
            let size = 0;
            const finish = () => {
              const code = status ?? 0;
              const text = Buffer.concat(chunks).toString('utf8').slice(0, ERROR_SNIPPET).trim();
              if (code >= 200 && code < 300) return resolve(result(code, null));
              const why = code >= 300 && code < 400 ? 'redirects are not followed' : text;
              resolve(result(code, `HTTP ${code}${why ? `: ${why}` : ''}`));
            };
            res.on('data', (chunk: Buffer) => {
              if (size >= RESPONSE_LIMIT) return;
              chunks.push(chunk);
              size += chunk.length;
              // Enough read: stop the transfer; the status already decides the outcome.
              if (size >= RESPONSE_LIMIT) res.destroy();
            });
            res.on('end', finish);
            res.on('close', finish);
            res.on('error', () => undefined);
          },
        );
        req.on('error', (err) => {
          // After the status line, the response's own close settles the result.
          if (status === undefined) resolve(result(null, abort.signal.aborted ? `no answer within ${timeoutMs} ms` : err.message));
        });
        req.end(body);
      });
    } catch (err) {
      return result(null, err instanceof Error ? err.message : String(err));
    } finally {
      clearTimeout(timer);
    }
  };
}
