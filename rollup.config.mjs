// Builds the browser agent: ESM (package root) and IIFE (global `Tessera`), each in a plain
// and a CDN variant whose defaults are the placeholders the service replaces when serving it.
import nodeResolve from '@rollup/plugin-node-resolve';
import terser from '@rollup/plugin-terser';
import typescript from '@rollup/plugin-typescript';

const plugins = () => [
  nodeResolve({ browser: true }),
  typescript({
    tsconfig: './tsconfig.json',
    include: ['src/agent/**/*.ts', 'src/protocol/**/*.ts'],
    compilerOptions: { noEmit: false, declaration: false, sourceMap: false, target: 'ES2020', types: [] },
    outputToFilesystem: false,
  }),
];

// The IIFE's top level is the `var Tessera` assignment, which must survive minification.
// Every function of the agent runs on a page's first start()+get(): the first line asks V8
// (Chrome 136+) to compile them all as the script loads, on a background thread while it
// streams, instead of one by one on the main thread at their first call (docs/performance.md).
const COMPILE_HINT = '//# allFunctionsCalledOnLoad';
const minify = (esm) =>
  terser({
    ecma: 2020,
    module: esm,
    toplevel: esm,
    compress: { passes: 3, unsafe_arrows: true, unsafe_methods: true, pure_getters: true },
    mangle: { properties: false },
    format: { comments: false, preamble: COMPILE_HINT },
  });

const build = (input, name) => ({
  input,
  plugins: plugins(),
  output: [
    { file: `dist/agent/${name}.esm.js`, format: 'es', plugins: [minify(true)] },
    // A script tag's global is never imported by a bundler: no `__esModule` marker on it.
    { file: `dist/agent/${name}.iife.js`, format: 'iife', name: 'Tessera', exports: 'named', esModule: false, plugins: [minify(false)] },
  ],
});

export default [build('src/agent/index.ts', 'agent'), build('src/agent/cdn.ts', 'cdn')];
