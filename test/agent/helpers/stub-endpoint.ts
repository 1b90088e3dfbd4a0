/**
 * A programmable HTTP endpoint on 127.0.0.1 for the agent's unit tests: it stands in for what
 * sits between a page and the service in the real world (a proxy answering 502, a misrouted
 * endpoint answering HTML, a hanging upstream) and records every request body it receives.
 * Tests against the real service live in e2e/agent.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IdentifyRequest, IdentifyResponse } from '../../../src/protocol/index.js';


export type Reply = (body: IdentifyRequest, res: ServerResponse) => void;

export interface StubEndpoint {
  url: string;
  requests: IdentifyRequest[];
  /** Query strings of the requests, in order. */
  queries: string[];
  reply: Reply;
  close(): Promise<void>;
}

let counter = 0;

/** A well-formed identification answer with a fresh event id and the given token. */
export const identified = (extra: Partial<IdentifyResponse> = {}): Reply => (_body, res) =>
  json(res, 200, {
    v: 1,
    event_id: `evt-${++counter}`,
    visitor_id: 'visitor-1',
    confidence: { score: 0.99, version: 'test' },
    visitor_found: true,
    sealed_result: null,
    token: 'token-1',
    ...extra,
  });

export const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

export async function startStubEndpoint(reply: Reply = identified()): Promise<StubEndpoint> {
  const stub: StubEndpoint = { url: '', requests: [], queries: [], reply, close: async () => {} };
  const server = createServer((req, res) => {
    res.setHeader('access-control-allow-origin', '*');
    // happy-dom preflights even CORS-simple requests (browsers do not): let it through.
    if (req.method == 'OPTIONS') {
      res.setHeader('access-control-allow-headers', 'content-type');
      return void res.end();
    }
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      const body = JSON.parse(text) as IdentifyRequest;
      stub.requests.push(body);
      stub.queries.push(req.url!.slice(req.url!.indexOf('?')));
      stub.reply(body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  stub.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return stub;
}
