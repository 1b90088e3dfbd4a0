/**
 * The `tessera` command as a user runs it: `node bin/tessera.js` (compiled by `npm run
 * build:node`, which `npm test` runs first) against temp data directories and PostgreSQL.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVICE_OPTIONS } from '../../src/service/cli/options.js';
import { identifyRequest, postIdentify } from '../helpers/identify-request.js';
import { createTestPostgresDatabase } from '../helpers/test-service.js';

const BIN = join(import.meta.dirname, '../../bin/tessera.js');
const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-cli-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts `tessera start --json`, resolves with its start report (the JSON line with `urls`). */
async function startService(args: string[], logLevel = 'silent') {
  const child = spawn(process.execPath, [BIN, 'start', '--port', '0', '--json', '--log-level', logLevel, ...args]);
  let stderr = '';
  const lines: string[] = [];
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const reportLine = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      if (line.includes('"urls"')) resolve(line);
    });
    child.on('close', () => reject(new Error(`tessera start exited early: ${stderr}`)));
  });
  return { report: JSON.parse(reportLine), stdout: () => lines.join('\n'), stop: () => (child.kill('SIGTERM'), exited) };
}

describe('tessera CLI', () => {
  it('--help documents every command, option and environment variable', async () => {
    const { code, stdout } = await run(['--help']);
    expect(code).toBe(0);
    for (const command of ['start', 'migrate', 'keys list', 'keys create', 'keys disable', 'keys enable', 'keys delete', 'settings get', 'settings set']) {
      expect(stdout).toContain(command);
    }
    for (const option of SERVICE_OPTIONS) {
      expect(stdout).toContain(`--${option.flag}`);
      if (option.env) expect(stdout).toContain(option.env);
    }
    for (const env of ['DATABASE_URL', 'REDIS_URL', 'TESSERA_PORT', 'TESSERA_DATA_DIR', 'TESSERA_REGION', 'TESSERA_RETENTION_DAYS', 'TESSERA_LOG_LEVEL']) {
      expect(stdout).toContain(env);
    }
  });

  it('refuses unknown commands, options and bad values with a message and exit code 1', async () => {
    const unknownOption = await run(['start', '--bogus']);
    expect(unknownOption.code).toBe(1);
    expect(unknownOption.stderr).toContain('--bogus');
    const unknownCommand = await run(['frobnicate']);
    expect(unknownCommand.code).toBe(1);
    expect(unknownCommand.stderr).toContain('frobnicate');
    const badPort = await run(['keys', 'list', '--data-dir', tempDir()], { TESSERA_PORT: 'eighty' });
    expect(badPort.code).toBe(1);
    expect(badPort.stderr).toContain('TESSERA_PORT');
  });

  it('keys list/create/disable work on the data directory, as JSON for scripts', async () => {
    const dir = tempDir();
    const listed = await run(['keys', 'list', '--json'], { TESSERA_DATA_DIR: dir });
    expect(listed.code).toBe(0);
    const keys = JSON.parse(listed.stdout).data as { id: string; type: string; token: string | null; status: string }[];
    expect(keys.map((k) => k.type).sort()).toEqual(['management', 'public', 'secret']);
    // Secret and management tokens are stored hashed: shown once, on stderr, by the command that created them.
    expect(keys.filter((k) => k.token !== null).map((k) => k.type)).toEqual(['public']);
    const secretToken = /Secret key\s+(\S+)/.exec(listed.stderr)?.[1];
    expect(secretToken).toMatch(/^[A-Za-z0-9]{32}$/);
    const byToken = await run(['keys', 'disable', secretToken!, '--json', '--data-dir', dir]);
    expect(JSON.parse(byToken.stdout).data).toMatchObject({ type: 'secret', status: 'disabled', token: null });
    await run(['keys', 'enable', secretToken!, '--data-dir', dir]);

    const created = await run(['keys', 'create', '--type', 'public', '--name', 'Shop', '--rate-limit', '7', '--json', '--data-dir', dir]);
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout).data;
    expect(key).toMatchObject({ type: 'public', name: 'Shop', rate_limit: 7, status: 'enabled' });

    const disabled = await run(['keys', 'disable', key.id, '--json', '--data-dir', dir]);
    expect(disabled.code).toBe(0);
    expect(JSON.parse(disabled.stdout).data.status).toBe('disabled');

    const after = JSON.parse((await run(['keys', 'list', '--json', '--data-dir', dir])).stdout).data as typeof keys;
    expect(after).toHaveLength(4);
    expect(after.find((k) => k.id === key.id)?.status).toBe('disabled');
    // The same data as before: the bootstrap keys were not created again.
    expect(after.filter((k) => k.type !== 'public' || k.id !== key.id).map((k) => k.token).sort()).toEqual(keys.map((k) => k.token).sort());

    const table = await run(['keys', 'list', '--data-dir', dir]);
    expect(table.stdout).toContain(key.id);
    expect(table.stdout).toMatch(/ID\s+TYPE\s+STATUS/);
    expect(table.stdout).toContain('(stored hashed)');

    const management = await run(['keys', 'create', '--type', 'management', '--name', 'Reader', '--permissions', 'api_keys:read,settings:read', '--json', '--data-dir', dir]);
    const reader = JSON.parse(management.stdout).data;
    expect(reader).toMatchObject({ type: 'management', permissions: ['api_keys:read', 'settings:read'] });
    expect(reader.token).toMatch(/^[A-Za-z0-9]{40}$/);
    const badPermission = await run(['keys', 'create', '--type', 'management', '--name', 'Odd', '--permissions', 'root', '--data-dir', dir]);
    expect(badPermission.code).toBe(1);
    expect(badPermission.stderr).toContain('unknown permission "root"');
    const deleted = await run(['keys', 'delete', reader.id, '--data-dir', dir]);
    expect(deleted.code).toBe(0);
    expect(JSON.parse((await run(['keys', 'list', '--json', '--data-dir', dir])).stdout).data.map((k: { id: string }) => k.id)).not.toContain(reader.id);

    const set = await run(['settings', 'set', '--visitor-deletion-enabled', 'true', '--data-retention-days', '30', '--json', '--data-dir', dir]);
    expect(JSON.parse(set.stdout).data).toEqual({ visitor_deletion_enabled: true, data_retention_days: 30 });
    expect(JSON.parse((await run(['settings', 'get', '--json', '--data-dir', dir])).stdout).data.data_retention_days).toBe(30);
    expect((await run(['settings', 'set', '--data-retention-days', '0', '--data-dir', dir])).code).toBe(1);
  });

  it('works with DATABASE_URL (PostgreSQL)', async () => {
    const database = await createTestPostgresDatabase();
    try {
      const env = { DATABASE_URL: database.config.databaseUrl! };
      const migrated = await run(['migrate', '--json'], env);
      expect(migrated.code).toBe(0);
      expect(JSON.parse(migrated.stdout).applied).toContain('001-core');
      const listed = await run(['keys', 'list', '--json', '--type', 'secret'], env);
      expect(JSON.parse(listed.stdout).data).toHaveLength(1);
    } finally {
      await database.drop();
    }
  });

  it('start: the first start reports the keys and URLs, serves them, stops on SIGTERM; the second reuses the data', async () => {
    const dir = tempDir();
    const first = await startService(['--data-dir', dir]);
    try {
      expect(first.report.first_start).toBe(true);
      expect(first.report.engine).toBe('sqlite');
      const { keys, urls, url } = first.report;
      expect(urls.cdn_esm).toBe(`${url}/v4/${keys.public}`);
      expect((await fetch(urls.demo)).status).toBe(200);
      const identified = await postIdentify(urls.ingestion.replace(/\/$/, ''), identifyRequest(keys.public));
      expect(identified.status).toBe(200);
    } finally {
      expect(await first.stop()).toBe(0);
    }

    const second = await startService(['--data-dir', dir]);
    try {
      expect(second.report.first_start).toBe(false);
      expect(second.report.keys).toBeUndefined();
      expect(second.report.urls.cdn_esm).toContain(first.report.keys.public);
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });

  it('never logs keys or visitor tokens, even at debug level', async () => {
    const service = await startService(['--data-dir', tempDir()], 'debug');
    const { keys, url } = service.report;
    let token: string;
    try {
      const first = await postIdentify(url, identifyRequest(keys.public));
      token = first.json.token;
      await postIdentify(url, identifyRequest(keys.public, { token }));
      await fetch(`${url}/v4/events?limit=1`, { headers: { Authorization: `Bearer ${keys.secret}` } });
      await fetch(`${url}/visitors/someone?api_key=${keys.secret}`);
      await fetch(`${url}/visitors/someone`, { headers: { 'Auth-API-Key': keys.management } });
    } finally {
      expect(await service.stop()).toBe(0);
    }
    const logs = service.stdout().split('\n').filter((line) => !line.includes('"urls"'));
    expect(logs.some((line) => line.includes('"reqId"'))).toBe(true); // requests were logged, with ids
    const text = logs.join('\n');
    for (const secret of [keys.secret, keys.management, token!]) expect(text).not.toContain(secret);
  });
});
