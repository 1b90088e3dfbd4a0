// `--import ./bench/compiled-code.mjs` (after tsx): the benchmarks measure the service as
// production runs it, the tsc output in dist/node, not the TypeScript sources that tsx
// transpiles on the fly (its helpers wrap every closure and cost several times the work of
// some hot paths). Imports of src/{service,events,protocol,server} resolve to dist/node;
// everything else (the benchmarks, test helpers, the agent) is left as it is.
import { spawnSync } from 'node:child_process';
import { register } from 'node:module';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
// The compiled code must match the sources: rebuild it when it is older than they are.
const build = spawnSync(process.execPath, [join(root, 'scripts', 'build-if-stale.mjs')], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) throw new Error('bench: building dist/ failed');

register('./compiled-code-resolve.mjs', import.meta.url);
