/**
 * The convention every benchmark follows so `npm run bench` (bench/run-all.ts) can collect it:
 * print a human-readable table, and write `bench/.out/<name>.json` with a Markdown section for
 * BENCHMARKS.md and the raw figures. See bench/README.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BenchOutput {
  /** File name stem, e.g. 'accuracy' -> bench/.out/accuracy.json. */
  name: string;
  /** Section heading in BENCHMARKS.md. */
  title: string;
  /** Markdown body of the section: tables with our figures and the peers side by side. */
  markdown: string;
  /** Machine-readable figures (free form, per benchmark). */
  figures: unknown;
}

export const BENCH_OUT_DIR = process.env.BENCH_OUT_DIR ?? join(dirname(fileURLToPath(import.meta.url)), '.out');

/** Writes bench/.out/<name>.json and returns its path. */
export function writeBenchOutput(output: BenchOutput): string {
  mkdirSync(BENCH_OUT_DIR, { recursive: true });
  const file = join(BENCH_OUT_DIR, `${output.name}.json`);
  writeFileSync(file, `${JSON.stringify({ ...output, generatedAt: new Date().toISOString() }, null, 2)}\n`);
  return file;
}
