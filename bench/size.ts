/**
 * `npm run size`: bytes of each agent build (raw, gzip -9, brotli q11) next to the open-source
 * peer @fingerprintjs/fingerprintjs, measured in the same run from its installed dist files
 * (its ESM file is shipped unminified, so it is also minified here with the same terser
 * settings for a like-for-like figure). Run after `npm run build:agent` (the npm script does).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { minify } from 'terser';
import { writeBenchOutput } from './bench-output.js';

/** The performance issue's target: every signal in at most 8 KB gzipped. */
const TARGET_GZIP = 8 * 1024;
/** What test/agent/build-size.test.ts allows before CI fails. */
const CI_LIMIT_GZIP = 12 * 1024;

const peerDir = join(dirname(createRequire(import.meta.url).resolve('@fingerprintjs/fingerprintjs/package.json')), 'dist');
const peerVersion = JSON.parse(readFileSync(join(peerDir, '..', 'package.json'), 'utf8')).version as string;

const measure = (name: string, code: Buffer | string) => {
  const bytes = Buffer.from(code);
  return {
    name,
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
};

const ours = ['agent.iife.js', 'agent.esm.js', 'cdn.iife.js', 'cdn.esm.js'].map((f) =>
  measure(`tessera ${f}`, readFileSync(join('dist/agent', f))),
);
const peerEsm = readFileSync(join(peerDir, 'fp.esm.js'), 'utf8');
const peerEsmMin = (await minify(peerEsm, { ecma: 2020, module: true, compress: { passes: 3 }, format: { comments: false } })).code!;
const peers = [
  measure(`fingerprintjs ${peerVersion} fp.min.js (IIFE)`, readFileSync(join(peerDir, 'fp.min.js'))),
  measure(`fingerprintjs ${peerVersion} fp.umd.min.js`, readFileSync(join(peerDir, 'fp.umd.min.js'))),
  measure(`fingerprintjs ${peerVersion} fp.esm.js (as shipped)`, peerEsm),
  measure(`fingerprintjs ${peerVersion} fp.esm.js (terser here)`, peerEsmMin),
];

const kb = (n: number) => (n / 1024).toFixed(2) + ' KB';
const rows = [...ours, ...peers].map((r) => `| ${r.name} | ${kb(r.raw)} | ${kb(r.gzip)} | ${kb(r.brotli)} |`);
const iife = ours[0]!;
const markdown = [
  '| build | raw | gzip -9 | brotli 11 |',
  '|---|---|---|---|',
  ...rows,
  '',
  `Tessera IIFE (every signal, idb-keyval, transport, cache): ${kb(iife.gzip)} gzipped; target ${kb(TARGET_GZIP)}, CI limit ${kb(CI_LIMIT_GZIP)} ` +
    `(${iife.gzip <= TARGET_GZIP ? 'within target' : 'OVER TARGET'}). The peer collects signals only (no transport, storage or cache).`,
].join('\n');
console.log(markdown);
writeBenchOutput({ name: 'size', title: 'Agent size', markdown, figures: { ours, peers } });
