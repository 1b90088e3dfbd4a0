// The resolve hook of compiled-code.mjs: src/<dir>/x.ts -> dist/node/<dir>/x.js.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join, relative, sep } from 'node:path';

const root = join(import.meta.dirname, '..');
const COMPILED = ['service', 'events', 'protocol', 'server'];

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (!resolved.url.startsWith('file:')) return resolved;
  const path = relative(join(root, 'src'), fileURLToPath(resolved.url));
  const [dir] = path.split(sep);
  if (path.startsWith('..') || !COMPILED.includes(dir) || !path.endsWith('.ts')) return resolved;
  const compiled = join(root, 'dist', 'node', path.replace(/\.ts$/, '.js'));
  if (!existsSync(compiled)) throw new Error(`bench: ${compiled} is missing; run npm run build`);
  return { ...resolved, url: pathToFileURL(compiled).href, format: 'module' };
}
