import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { PROTOCOL_DOC, withSignalTable } from '../../scripts/generate-signal-docs.js';
import { SIGNAL_NAMES } from '../../src/protocol/signals.js';

test('the signal table of docs/protocol.md is up to date (else run: npx tsx scripts/generate-signal-docs.ts)', () => {
  const page = readFileSync(PROTOCOL_DOC, 'utf8');
  expect(page).toBe(withSignalTable(page));
  for (const name of SIGNAL_NAMES) expect(page).toContain(`| \`${name}\` |`);
});

test('a page without the markers is an error, not a silent no-op', () => {
  expect(() => withSignalTable('# no table here\n')).toThrow(/markers/);
});
