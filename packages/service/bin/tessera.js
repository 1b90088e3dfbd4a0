#!/usr/bin/env node
// The `tessera-id-service` (and `tessera`) command: the compiled CLI, copied here by build.mjs.
import('../dist/node/service/cli.js').then((cli) => cli.main(process.argv.slice(2))).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
