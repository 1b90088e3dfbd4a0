#!/usr/bin/env node
// Thin launcher: the CLI itself is compiled TypeScript (npm run build).
import('../dist/node/service/cli.js').then((cli) => cli.main(process.argv.slice(2))).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
