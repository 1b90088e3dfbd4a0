// `npm start` (prestart) and the packaging test: rebuild only what is older than its sources.
// The agent bundles (rollup, slow) when src/agent or src/protocol changed; the compiled Node
// code (tsc) when anything under src/ changed. Compares file modification times; `npm run
// build` always rebuilds everything.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const CONFIG = ['package.json', 'tsconfig.json'];
const TARGETS = [
  {
    script: 'build:agent',
    inputs: ['src/agent', 'src/protocol', 'rollup.config.mjs', ...CONFIG],
    outputs: ['agent.esm.js', 'agent.iife.js', 'cdn.esm.js', 'cdn.iife.js'].map((f) => `dist/agent/${f}`),
  },
  {
    script: 'build:node',
    inputs: ['src', 'tsconfig.build.json', ...CONFIG],
    outputs: ['dist/node/service/cli.js', 'dist/node/server/index.js', 'dist/types/agent/index.d.ts'],
  },
];

function newest(path) {
  const s = statSync(join(root, path));
  if (!s.isDirectory()) return s.mtimeMs;
  let max = s.mtimeMs;
  for (const name of readdirSync(join(root, path))) max = Math.max(max, newest(join(path, name)));
  return max;
}

function oldest(paths) {
  try {
    return Math.min(...paths.map((p) => statSync(join(root, p)).mtimeMs));
  } catch {
    return -Infinity; // missing output
  }
}

for (const target of TARGETS) {
  if (oldest(target.outputs) >= Math.max(...target.inputs.map(newest))) continue;
  const run = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', target.script, '--silent'], { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
