/**
 * The directory of Tessera's package.json, found from this module's location (src/ or dist/):
 * the repository (`tessera-id`) or the installed `tessera-id-service` package, both of which
 * hold the agent's CDN builds in dist/agent.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAMES = ['tessera-id', 'tessera-id-service'];

let cached: string | undefined;

export function packageRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && PACKAGE_NAMES.includes((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name ?? '')) {
      return (cached = dir);
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the package root of tessera-id-service');
    dir = parent;
  }
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}
