/**
 * The two published packages as users get them: `npm pack` of tessera-id (repository root) and
 * tessera-id-service (packages/service), each tarball installed with `npm install` into an
 * empty folder (registry reachable, npm's cache reused), then:
 * - tessera-id: no dependencies installed; a bundler (the repository's rollup) bundles
 *   `import { start } from 'tessera-id'`; `tessera-id/server` calls a running service;
 * - tessera-id-service: no EBADENGINE warning on this Node; its bin starts the service from the
 *   installed package with a temp data directory, which serves its CDN agent and answers an
 *   identification.
 *
 * better-sqlite3 has no prebuilt binary reachable here, so a full install compiles it (minutes
 * on a busy 2-core machine): by default the service tarball is installed with --ignore-scripts
 * and the repository's compiled better-sqlite3 binary is reused when the versions match
 * (otherwise `npm rebuild better-sqlite3` compiles it). TESSERA_PACK_FULL_INSTALL=1 runs the
 * install scripts as a user's machine would.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identifyRequest, postIdentify } from '../helpers/identify-request.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

const exec = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const FULL_INSTALL = process.env.TESSERA_PACK_FULL_INSTALL === '1';
const INSTALL_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=warn'];

let work: string;
const tarballs: Record<'agent' | 'service', string> = { agent: '', service: '' };

async function npm(args: string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
  return exec(NPM, args, { cwd, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, npm_config_update_notifier: 'false' } });
}

/** An empty project folder with one tarball installed; resolves with npm's output. */
async function installInto(name: string, tarball: string, extra: string[] = []): Promise<{ dir: string; output: string }> {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `pack-test-${name}`, private: true, type: 'module' }));
  const { stdout, stderr } = await npm(['install', ...INSTALL_FLAGS, ...extra, tarball], dir);
  return { dir, output: stdout + stderr };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'tessera-pack-'));
  // What prepack does (`npm run build`, then packages/service/build.mjs), without rebuilding
  // what `npm test`'s pretest has just built.
  await exec(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: ROOT });
  await exec(process.execPath, ['packages/service/build.mjs', '--no-build'], { cwd: ROOT });
  for (const [key, cwd] of [
    ['agent', ROOT],
    ['service', join(ROOT, 'packages/service')],
  ] as const) {
    const { stdout } = await npm(['pack', '--silent', '--ignore-scripts', '--pack-destination', work], cwd);
    tarballs[key] = join(work, stdout.trim().split('\n').pop()!);
  }
}, 240_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('tessera-id (agent + server client)', () => {
  let dir: string;
  let output: string;
  let svc: TestService | undefined;
  beforeAll(async () => {
    ({ dir, output } = await installInto('agent', tarballs.agent));
    svc = await startTestService();
  }, 180_000);
  afterAll(async () => {
    await svc?.close();
  });

  it('installs with no dependencies, no warnings, and ships no test scripts or source maps', () => {
    expect(output).not.toMatch(/EBADENGINE|npm (warn|ERR)/);
    expect(readdirSync(join(dir, 'node_modules')).filter((n) => !n.startsWith('.'))).toEqual(['tessera-id']);
    const pkg = join(dir, 'node_modules/tessera-id');
    expect(existsSync(join(pkg, 'LICENSE'))).toBe(true);
    expect(existsSync(join(pkg, 'scripts'))).toBe(false);
    expect(existsSync(join(pkg, 'dist/node/service'))).toBe(false);
    expect(existsSync(join(pkg, 'dist/node/server/index.js.map'))).toBe(false);
  });

  it('a bundler resolves `import { start } from "tessera-id"` and the bundle contains start()', async () => {
    writeFileSync(join(dir, 'app.js'), "import { start } from 'tessera-id';\nwindow.agent = start({ apiKey: 'pk', endpoints: '/t' });\n");
    const { rollup } = await import('rollup');
    const { nodeResolve } = await import('@rollup/plugin-node-resolve');
    const bundle = await rollup({ input: join(dir, 'app.js'), plugins: [nodeResolve({ browser: true, rootDir: dir })], logLevel: 'silent' });
    const { output: chunks } = await bundle.generate({ format: 'iife' });
    await bundle.close();
    expect(bundle.watchFiles.some((f) => f.includes(join('node_modules', 'tessera-id', 'dist', 'agent', 'agent.esm.js')))).toBe(true);
    const code = chunks[0].code;
    expect(code).toContain('window.agent');
    expect(code).toContain('endpoints_misconfigured'); // start()'s option checks came along
    expect(code).not.toMatch(/\bfrom\s*['"]|require\(/); // self-contained: idb-keyval is bundled
  });

  it('tessera-id/server (no node: imports) calls a running service', async () => {
    const serverDir = join(dir, 'node_modules/tessera-id/dist/node');
    const sources = readdirSync(serverDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
    expect(sources.length).toBeGreaterThan(3);
    for (const file of sources) expect(readFileSync(join(serverDir, file), 'utf8'), file).not.toMatch(/from\s*['"]node:|require\(/);

    const { json } = await postIdentify(svc!.url, identifyRequest(svc!.keys.publicKey));
    const script = [
      "import { ServerApiClient, ManagementApiClient } from 'tessera-id/server';",
      'const [baseUrl, secret, management, eventId] = process.argv.slice(2);',
      'const event = await new ServerApiClient({ apiKey: secret, baseUrl }).getEvent(eventId);',
      // (the Management API routes live on another branch: only the client is checked here)
      'new ManagementApiClient({ apiKey: management, baseUrl });',
      'console.log(JSON.stringify({ event_id: event.event_id, visitor_id: event.identification?.visitor_id ?? event.visitor_id }));',
    ].join('\n');
    writeFileSync(join(dir, 'client.mjs'), script);
    const eventId = json.event_id as string;
    const { stdout } = await exec(process.execPath, ['client.mjs', svc!.url, svc!.keys.secretKey, svc!.keys.managementKey, eventId], { cwd: dir });
    expect(JSON.parse(stdout)).toEqual({ event_id: eventId, visitor_id: json.visitor_id });
  });
});

describe('tessera-id-service', () => {
  let dir: string;
  let output: string;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    ({ dir, output } = await installInto('service', tarballs.service, FULL_INSTALL ? [] : ['--ignore-scripts']));
    if (!FULL_INSTALL) {
      const installed = join(dir, 'node_modules/better-sqlite3');
      const version = (d: string) => (JSON.parse(readFileSync(join(d, 'package.json'), 'utf8')) as { version: string }).version;
      const repo = join(ROOT, 'node_modules/better-sqlite3');
      if (existsSync(join(repo, 'build/Release/better_sqlite3.node')) && version(repo) === version(installed)) {
        cpSync(join(repo, 'build/Release/better_sqlite3.node'), join(installed, 'build/Release/better_sqlite3.node'));
      } else {
        await npm(['rebuild', 'better-sqlite3', '--loglevel=error'], dir);
      }
    }
  }, 600_000);
  afterAll(() => {
    child?.kill('SIGTERM');
  });

  it('installs its real dependencies (pg and ioredis optional) without engine warnings', () => {
    expect(output).not.toMatch(/EBADENGINE/);
    const modules = readdirSync(join(dir, 'node_modules'));
    for (const dep of ['fastify', 'better-sqlite3', 'kysely', 'pino', 'isbot', 're2js', 'ipaddr.js', 'rate-limiter-flexible', 'ua-parser-js', 'undici', 'pg', 'ioredis'])
      expect(modules, dep).toContain(dep);
    expect(modules).not.toContain('tessera-id'); // the agent's CDN builds are inside, not a dependency
    const pkg = join(dir, 'node_modules/tessera-id-service');
    expect(readdirSync(join(pkg, 'dist/agent')).sort()).toEqual(['cdn.esm.js', 'cdn.iife.js']);
    expect(readdirSync(join(pkg, 'dist/node/service'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(existsSync(join(dir, 'node_modules/.bin/tessera-id-service'))).toBe(true);
    expect(existsSync(join(dir, 'node_modules/.bin/tessera'))).toBe(true);
  });

  it('`tessera-id-service start` runs from the installed package, serves its CDN agent and identifies', async () => {
    const dataDir = join(dir, 'data');
    child = spawn(join(dir, 'node_modules/.bin/tessera-id-service'), ['start', '--port', '0', '--json', '--log-level', 'silent', '--data-dir', dataDir], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const report = await new Promise<{ url: string; keys: { public: string } }>((resolve, reject) => {
      createInterface({ input: child!.stdout! }).on('line', (line) => line.includes('"urls"') && resolve(JSON.parse(line)));
      child!.on('close', () => reject(new Error(`tessera-id-service exited early: ${stderr}`)));
    });
    const cdn = await fetch(`${report.url}/v4/${report.keys.public}`);
    expect(cdn.status).toBe(200);
    expect(await cdn.text()).toContain(report.keys.public);
    const { status, json } = await postIdentify(report.url, identifyRequest(report.keys.public));
    expect(status).toBe(200);
    expect(json).toMatchObject({ visitor_found: false });
    expect(json.visitor_id).toMatch(/\S{8,}/);
    const version = await exec(join(dir, 'node_modules/.bin/tessera'), ['--version']);
    expect(version.stdout.trim()).toBe('tessera-id-service ' + (JSON.parse(readFileSync(join(ROOT, 'packages/service/package.json'), 'utf8')) as { version: string }).version);
  });
});
