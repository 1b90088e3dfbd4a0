/**
 * A bench- and test-only build of the signal sources: an IIFE that sets the global
 * `TesseraSources` to the agent's `SOURCES`, compiled by the plugins of rollup.config.mjs
 * (unminified). The production bundles carry no hook for timing or calling single sources;
 * this lets the e2e tests and `bench/agent-speed.ts` call each source on its own in a page.
 */
import { resolve } from 'node:path';
import { rollup, type Plugin } from 'rollup';
import { loadConfigFile } from 'rollup/loadConfigFile';

const ENTRY = '\0tessera-sources';

/** The page global the bundle sets. */
export interface SourcesGlobal {
  TesseraSources: { SOURCES: Record<string, () => unknown> };
}

export async function buildSourcesBundle(): Promise<string> {
  const { options } = await loadConfigFile(resolve('rollup.config.mjs'), {});
  const entry: Plugin = {
    name: 'sources-entry',
    resolveId: (id) => (id === ENTRY ? ENTRY : null),
    load: (id) => (id === ENTRY ? `export { SOURCES } from ${JSON.stringify(resolve('src/agent/signals/index.ts'))};` : null),
  };
  const bundle = await rollup({ input: ENTRY, plugins: [entry, ...options[0]!.plugins] });
  try {
    const { output } = await bundle.generate({ format: 'iife', name: 'TesseraSources', exports: 'named' });
    return output[0].code;
  } finally {
    await bundle.close();
  }
}
