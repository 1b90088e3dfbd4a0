// prepack of tessera-id-service: builds the repository (agent bundles + compiled TypeScript)
// and copies what the service needs at run time into packages/service/dist, in the same
// layout as the repository's dist/ (so the service finds dist/agent from its package root).
// Sources stay in the repository's src/; nothing here is edited by hand.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const out = join(here, 'dist');

const version = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
if (version(root) !== version(here)) throw new Error(`tessera-id ${version(root)} and tessera-id-service ${version(here)}: give both packages the same version`);

if (!process.argv.includes('--no-build')) {
  execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
}
rmSync(out, { recursive: true, force: true });
const noMaps = (src) => !src.endsWith('.map');
// The service imports src/events, src/protocol and (types only) src/server.
for (const dir of ['service', 'events', 'protocol']) {
  cpSync(join(root, 'dist', 'node', dir), join(out, 'node', dir), { recursive: true, filter: noMaps });
}
for (const dir of ['service', 'events', 'protocol', 'server']) {
  cpSync(join(root, 'dist', 'types', dir), join(out, 'types', dir), { recursive: true, filter: noMaps });
}
// The CDN builds the service serves at /v4/<public key> (the demo page loads them too).
mkdirSync(join(out, 'agent'), { recursive: true });
for (const file of ['cdn.esm.js', 'cdn.iife.js']) cpSync(join(root, 'dist', 'agent', file), join(out, 'agent', file));
