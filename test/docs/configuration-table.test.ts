/** The option table of docs/configuration.md lists exactly the CLI's options, with their variables and defaults. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { SERVICE_OPTIONS } from '../../src/service/cli/options.js';

const markdown = readFileSync(join(import.meta.dirname, '../../docs/configuration.md'), 'utf8');
const start = markdown.indexOf('<!-- configuration-table:start -->');
const end = markdown.indexOf('<!-- configuration-table:end -->');
const rows = markdown
  .slice(start, end)
  .split('\n')
  .filter((line) => line.startsWith('| `--'))
  .map((line) => line.split('|').slice(1, -1).map((cell) => cell.trim()));

it('has one row per service option, in the same order', () => {
  expect(start).toBeGreaterThanOrEqual(0);
  expect(rows.map((r) => /`--([a-z-]+)`/.exec(r[0]!)?.[1])).toEqual(SERVICE_OPTIONS.map((o) => o.flag));
});

it.each(SERVICE_OPTIONS.map((o) => [o.flag, o] as const))('--%s: short flag, environment variable and default', (flag, spec) => {
  const row = rows.find((r) => r[0]!.includes(`\`--${flag}\``))!;
  if (spec.short) expect(row[0]).toContain(`\`-${spec.short}\``);
  expect(row[1]).toBe(spec.env ? `\`${spec.env}\`` : '');
  if (spec.defaultText !== undefined) expect(row[2]).toBe(`\`${spec.defaultText}\``);
  else expect(row[2]).toMatch(/^\(/);
});
