/**
 * Sends one webhook request over HTTPS, safely: the host is resolved first and every address
 * it resolves to is checked (address-policy.ts) before connecting; the connection then goes
 * to the checked address itself, with the original host name for SNI, certificate checks and
 * the Host header, so a DNS answer that changes between check and connect (DNS rebinding)
 * cannot redirect it. A host name's addresses are looked up at most every 5 s; cached ones are
 * checked like fresh ones before every connection. Redirects are not followed (a 3xx is a
 * failed attempt: following one would reach an unchecked target). At most RESPONSE_LIMIT bytes
 * of the answer are read.
 *
 * The HTTP client is undici's (a connection pool per checked address, port and server name,
 * HTTP/1.1 keep-alive, no pipelining), driven through its dispatch handler (post()): the
 * sending thread spends about 40% less CPU per request than with node:https, whose request
 * and agent machinery was most of a delivery's cost after the TLS write itself, and about 20%
 * less again than with undici's `pool.request`.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { createSecureContext } from 'node:tls';
import type * as Undici from 'undici';
import type { Dispatcher, Pool } from 'undici';
import { WEBHOOK_SIGNATURE_HEADER } from '../../events/webhook-signature.js';
import { refusedAddressReason } from './address-policy.js';
import { signWebhookBody } from './signer.js';

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

/**
 * Sends `body` to `url` with `headers`; with `signingKey`, signed (the `FPJS-Event-Signature`
 * header, signer.ts) where it is sent: the HMAC of a delivery's body is the delivery thread's
 * work, not the service's main thread's.
 */
export type Sender = (url: string, body: string, headers: Record<string, string>, signingKey?: string | null) => Promise<SendResult>;

class Refused extends Error {}

/** An address a host name resolves to. */
interface Address {
  address: string;
  family: number;
}

/** Pools kept at most (one per checked address, port and server name); the least recently used goes first. */
const MAX_POOLS = 64;
/** Connections per pool: the requests in flight to one receiver address at once. */
const POOL_CONNECTIONS = 16;
/** How long a host name's looked-up addresses are used. */
const RESOLVED_TTL_MS = 5000;
const MAX_RESOLVED = 1000;

export function createSender(opts: SenderOptions): Sender {
  const timeoutMs = opts.timeoutMs ?? SEND_TIMEOUT_MS;
  // Built once: a `ca` list given per request is parsed again for every connection (~150 root
  // certificates), which under load costs more than the 3 s the receiver is given.
  const secureContext = opts.ca ? createSecureContext({ ca: opts.ca }) : undefined;
  // Connections (and TLS sessions) are kept for the next delivery to the same receiver: a TLS
  // handshake per event costs more CPU than the identification that produced it. A pool
  // connects only to the address it is keyed by (checked before it is used), so reuse never
  // bypasses the check.
  const pools = new Map<string, Pool>();
  const poolFor = async (address: string, family: number, port: string, servername: string | undefined): Promise<Pool> => {
    const key = `${address}|${port}|${servername ?? ''}`;
    let pool = pools.get(key);
    if (pool) {
      // Most recently used last.
      pools.delete(key);
    } else {
      const host = family === 6 ? `[${address}]` : address;
      const { Pool } = await loadUndici();
      pool = new Pool(`https://${host}:${port}`, {
        connections: POOL_CONNECTIONS,
        pipelining: 1,
        // The certificate is checked against the URL's host name (SNI too); an IP literal as an IP.
        // `secureContext` is honoured by tls.connect; undici's connect options type omits it.
        connect: { servername, rejectUnauthorized: true, ...(secureContext ? { secureContext } : {}) } as Record<string, unknown>,
      });
      if (pools.size >= MAX_POOLS) {
        const [oldestKey, oldest] = pools.entries().next().value as [string, Pool];
        pools.delete(oldestKey);
        void oldest.close().catch(() => undefined);
      }
    }
    pools.set(key, pool);
    return pool;
  };

  // A host name's addresses are looked up again after RESOLVED_TTL_MS, not for every delivery
  // (a lookup takes a thread-pool round trip); whatever the cache holds is checked before use.
  const resolved = new Map<string, { addresses: Address[]; until: number }>();
  /** The addresses of `hostname` known without waiting: itself as an IP literal, or a recent lookup's. */
  const knownAddresses = (hostname: string): Address[] | undefined => {
    const family = isIP(hostname);
    if (family !== 0) return [{ address: hostname, family }];
    const cached = resolved.get(hostname);
    return cached && cached.until > performance.now() ? cached.addresses : undefined;
  };
  const lookUp = async (hostname: string): Promise<Address[]> => {
    const addresses = await lookup(hostname, { all: true, verbatim: true });
    if (resolved.size >= MAX_RESOLVED) resolved.clear();
    resolved.set(hostname, { addresses, until: performance.now() + RESOLVED_TTL_MS });
    return addresses;
  };

  /** The address to connect to, after checking every address the host has. */
  function checkedAddress(hostname: string, addresses: Address[]): Address {
    if (addresses.length === 0) throw new Error(`${hostname} does not resolve`);
    if (!opts.allowPrivateTargets) {
      for (const { address } of addresses) {
        const reason = refusedAddressReason(address);
        if (reason) throw new Refused(`target refused: ${hostname === address ? '' : `${hostname} resolves to `}${reason} (see --webhook-allow-private-targets)`);
      }
    }
    return addresses[0]!;
  }

  return async (url, body, headers, signingKey) => {
    const started = performance.now();
    const result = (httpStatus: number | null, error: string | null): SendResult => ({
      ok: error === null,
      httpStatus,
      latencyMs: Math.round(performance.now() - started),
      error,
    });
    // What the deadline stops: the lookup, then the exchange.
    let stop: (() => void) | undefined;
    let expired = false;
    const stopWhenExpired = (what: () => void) => (expired ? what() : (stop = what));
    // Expires from setImmediate, after this loop turn's I/O: an answer that arrived while this
    // thread was busy (its event loop blocked) is read, not mistaken for a receiver timeout.
    const timer = setTimeout(() => setImmediate(() => {
      expired = true;
      stop?.();
    }), timeoutMs);
    const timeoutError = `no answer within ${timeoutMs} ms`;
    try {
      const target = parseTarget(url);
      if (target.protocol !== 'https:') return result(null, 'target refused: webhook URLs must use https');
      let addresses = knownAddresses(target.hostname);
      if (!addresses) {
        // A lookup can hang: it counts against the receiver's time.
        const timedOut = new Promise<never>((_, reject) => stopWhenExpired(() => reject(new Error(timeoutError))));
        addresses = await Promise.race([lookUp(target.hostname), timedOut]);
      }
      const { address, family } = checkedAddress(target.hostname, addresses);
      const pool = await poolFor(address, family, target.port, target.servername);
      const sent = signingKey ? { ...headers, [WEBHOOK_SIGNATURE_HEADER]: signWebhookBody(body, signingKey), host: target.host } : { ...headers, host: target.host };
      const exchange = post(pool, { path: target.path, method: 'POST', headers: sent, body });
      stopWhenExpired(() => exchange.abort());
      // A timeout while the body is read does not change the status: it is the receiver's answer.
      const { status, text } = await exchange.answer;
      if (status >= 200 && status < 300) return result(status, null);
      const snippet = text.slice(0, ERROR_SNIPPET).trim();
      const why = status >= 300 && status < 400 ? 'redirects are not followed' : snippet;
      return result(status, `HTTP ${status}${why ? `: ${why}` : ''}`);
    } catch (err) {
      if (expired) return result(null, timeoutError);
      return result(null, err instanceof Error ? describeError(err) : String(err));
    } finally {
      clearTimeout(timer);
    }
  };
}

/** Why post() ends an exchange early; one instance, as an Error captures a stack when made. */
const EXCHANGE_STOPPED = new Error('exchange stopped');

/** A receiver's answer: its status, and the start of its body when it is not a 2xx. */
interface Answer {
  status: number;
  text: string;
}

/**
 * One request on `pool`, through undici's dispatch handler: the answer's bytes are counted as
 * they arrive, at most RESPONSE_LIMIT of them are read (the connection is closed past that,
 * and kept otherwise), and only a failed answer's are kept. This costs the sending thread
 * about 20% less CPU per delivery than `pool.request`, whose body stream, abort signal and
 * async resource per request a delivery has no use for. `abort` ends the exchange: before its
 * answer's status came it fails; after, the status stands with the body read so far.
 */
function post(pool: Pool, options: Dispatcher.DispatchOptions): { answer: Promise<Answer>; abort(): void } {
  let controller: Dispatcher.DispatchController | undefined;
  let aborted = false;
  let status = 0;
  let size = 0;
  const chunks: Buffer[] = [];
  let settle!: (error: Error | null) => void;
  const answer = new Promise<Answer>((resolve, reject) => {
    let settled = false;
    settle = (error) => {
      if (settled) return;
      settled = true;
      if (status === 0) reject(error ?? new Error('the exchange ended without an answer'));
      else resolve({ status, text: Buffer.concat(chunks).toString('utf8') });
    };
  });
  pool.dispatch(options, {
    onRequestStart(started) {
      controller = started;
      // Aborted while it waited for a connection: nothing is sent.
      if (aborted) started.abort(EXCHANGE_STOPPED);
    },
    onResponseStart(_controller, statusCode) {
      status = statusCode;
    },
    onResponseData(current, chunk) {
      size += chunk.length;
      if (status < 200 || status >= 300) chunks.push(chunk);
      // Enough read: the rest is not (the connection closes with the abort).
      if (size >= RESPONSE_LIMIT) current.abort(EXCHANGE_STOPPED);
    },
    onResponseEnd() {
      settle(null);
    },
    onResponseError(_controller, error) {
      settle(error);
    },
  });
  return {
    answer,
    abort() {
      aborted = true;
      if (controller) controller.abort(EXCHANGE_STOPPED);
      else settle(EXCHANGE_STOPPED);
    },
  };
}

// Loaded with the first pool (~0.1 s): the service's main thread, which sends only
// verifications, does not pay for it at start.
let undici: Promise<typeof Undici> | undefined;
const loadUndici = () => (undici ??= import('undici'));

interface Target {
  protocol: string;
  /** Without the brackets of an IPv6 literal. */
  hostname: string;
  /** With the port, as the Host header gives it. */
  host: string;
  /** The name certificates are checked against (SNI too); none for an IP literal, checked as an IP. */
  servername: string | undefined;
  port: string;
  path: string;
}

/** Parsed webhook URLs: a worker sends to the same few URLs over and over. */
const targets = new Map<string, Target>();
const MAX_TARGETS = 1000;

function parseTarget(url: string): Target {
  let target = targets.get(url);
  if (target) return target;
  const parsed = new URL(url);
  const hostname = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  target = {
    protocol: parsed.protocol,
    hostname,
    host: parsed.host,
    servername: isIP(hostname) ? undefined : hostname,
    port: parsed.port || '443',
    path: `${parsed.pathname}${parsed.search}`,
  };
  if (targets.size >= MAX_TARGETS) targets.clear();
  targets.set(url, target);
  return target;
}

/** An error's message, with its cause's when it only wraps one (undici's "fetch failed"-style errors). */
function describeError(err: Error): string {
  const cause = err.cause instanceof Error ? err.cause : undefined;
  return cause && cause.message && cause.message !== err.message ? `${err.message}: ${cause.message}` : err.message;
}
