import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, test } from 'vitest';
import { VERSION } from '../../src/agent/version.js';

test('the agent version is the package version', () => {
  expect(VERSION).toBe(JSON.parse(readFileSync(resolve(process.cwd(), 'package.json'), 'utf8')).version);
});
