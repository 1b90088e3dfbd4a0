/**
 * A tiny static site on its own 127.0.0.1 port, so the page's origin differs from the
 * service's and CORS is real. It serves the agent builds from dist/agent under /dist/, and an
 * HTML page at every other path (so a test can open any URL, with any query and fragment):
 * `?load=iife` (default) loads the IIFE build with a script tag, `?load=esm` imports the ESM
 * build, `?load=cdn-iife&svc=<url>&key=<key>` loads the service's CDN route, and
 * `?load=peer` loads the open-source peer (@fingerprintjs/fingerprintjs, global
 * `FingerprintJS`) for benchmarks, and `?load=none` no script; `?csp=<policy>` sends that
 * Content-Security-Policy header with the page. A page sets
 * `window.loaded = true` once its script is there.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';


const DIST = resolve(process.cwd(), 'dist/agent');
const PEER_DIST = resolve(process.cwd(), 'node_modules/@fingerprintjs/fingerprintjs/dist');

function page(url: URL): string {
  const load = url.searchParams.get('load') ?? 'iife';
  const svc = url.searchParams.get('svc');
  const key = url.searchParams.get('key');
  const body =
    load === 'none'
      ? `<script>window.loaded = true;</script>`
      : load === 'peer'
      ? `<script src="/peer/fp.min.js"></script><script>window.loaded = typeof FingerprintJS == 'object';</script>`
      : load === 'esm'
      ? `<script type="module">import * as T from '/dist/agent.esm.js'; window.Tessera = T; window.loaded = true;</script>`
      : load === 'cdn-esm'
        ? `<script type="module">const T = await import('${svc}/v4/${key}'); window.Tessera = T; window.loaded = true;</script>`
        : `<script src="${load === 'cdn-iife' ? `${svc}/v4/${key}/iife.js` : '/dist/agent.iife.js'}"></script>` +
          `<script>window.loaded = typeof Tessera == 'object';</script>`;
  return `<!doctype html><html><head><meta charset="utf-8"><title>agent test page</title></head><body>${body}</body></html>`;
}

export interface PageServer {
  origin: string;
  close(): Promise<void>;
}

export async function startPageServer(): Promise<PageServer> {
  const server: Server = createServer((req, res) => void (async () => {
    const url = new URL(req.url!, 'http://x');
    const dir = url.pathname.startsWith('/dist/') ? DIST : url.pathname.startsWith('/peer/') ? PEER_DIST : undefined;
    if (dir) {
      try {
        const js = await readFile(resolve(dir, url.pathname.split('/').pop()!.replace(/[^\w.-]/g, '')));
        res.writeHead(200, { 'content-type': 'text/javascript' });
        return void res.end(js);
      } catch {
        res.writeHead(404);
        return void res.end();
      }
    }
    if (url.pathname === '/favicon.ico') return void res.writeHead(404).end();
    // `?csp=<policy>`: the page is served under that Content-Security-Policy.
    const csp = url.searchParams.get('csp');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...(csp ? { 'content-security-policy': csp } : {}) });
    res.end(page(url));
  })());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
