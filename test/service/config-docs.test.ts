import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { CONFIG_DOC, withOptionTable } from '../../scripts/generate-config-docs.js';
import { SERVICE_OPTIONS } from '../../src/service/cli/options.js';

test('the option table of docs/configuration.md is up to date (else run: npx tsx scripts/generate-config-docs.ts)', () => {
  const page = readFileSync(CONFIG_DOC, 'utf8');
  expect(page).toBe(withOptionTable(page));
  for (const o of SERVICE_OPTIONS) expect(page).toContain(`| \`--${o.flag}\``);
});

test('a page without the markers is an error, not a silent no-op', () => {
  expect(() => withOptionTable('# no table here\n')).toThrow(/markers/);
});
