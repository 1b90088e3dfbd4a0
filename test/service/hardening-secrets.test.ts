/**
 * Secrets and files at rest: on SQLite the visitor-token secret lives in a 600 file of a 700
 * data directory (not in the database), the database files are 600 whatever the umask, looser
 * existing modes are tightened with a warning, and a database from before keeps its tokens valid.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createService, type Service } from '../../src/service/index.js';
import { SQLITE_FILE_NAME } from '../../src/service/store/database.js';
import { kyselyOf } from '../../src/service/store/index.js';
import { getSetting, setSetting } from '../../src/service/store/settings.js';
import { TOKEN_SECRET_FILE } from '../../src/service/token-secret.js';
import { identifyRequest, postIdentify } from '../helpers/identify-request.js';
import { captureLogs } from '../helpers/log-capture.js';
import { startTestService } from '../helpers/test-service.js';

const mode = (path: string) => statSync(path).mode & 0o777;

describe('secrets and file modes at rest (sqlite)', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  function newDataDir(): string {
    const parent = mkdtempSync(join(tmpdir(), 'tessera-modes-'));
    cleanups.push(() => rmSync(parent, { recursive: true, force: true }));
    return join(parent, 'data');
  }

  async function start(dataDir: string, logs = captureLogs()): Promise<{ service: Service; url: string }> {
    const service = await createService({ port: 0, dataDir, logLevel: 'warn', logDestination: logs.destination });
    cleanups.push(() => service.close());
    return { service, url: await service.listen() };
  }

  it('creates the data directory 700, the database files and the token key 600, and keeps the secret out of the database', async () => {
    const old = process.umask(0o022);
    try {
      const dataDir = newDataDir();
      const { service } = await start(dataDir);
      expect(mode(dataDir)).toBe(0o700);
      for (const name of [SQLITE_FILE_NAME, `${SQLITE_FILE_NAME}-wal`, `${SQLITE_FILE_NAME}-shm`, TOKEN_SECRET_FILE]) {
        if (name.endsWith('-wal') || name.endsWith('-shm')) {
          if (!existsSync(join(dataDir, name))) continue;
        }
        expect([name, mode(join(dataDir, name))]).toEqual([name, 0o600]);
      }
      expect(readFileSync(join(dataDir, TOKEN_SECRET_FILE), 'utf8')).toMatch(/^[\w-]{43}$/);
      expect(await getSetting(service.ctx.store, 'visitor_token_secret')).toBeUndefined();
    } finally {
      process.umask(old);
    }
  });

  it('tightens a looser existing data directory and database file, with a warning', async () => {
    const dataDir = newDataDir();
    const first = await start(dataDir);
    await first.service.close();
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, SQLITE_FILE_NAME), 0o644);
    chmodSync(join(dataDir, TOKEN_SECRET_FILE), 0o644);
    const logs = captureLogs();
    await start(dataDir, logs);
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(join(dataDir, SQLITE_FILE_NAME))).toBe(0o600);
    expect(mode(join(dataDir, TOKEN_SECRET_FILE))).toBe(0o600);
    const warnings = logs.records().filter((r) => r.level === 40 && /tightened the permissions/.test(r.msg ?? ''));
    expect(warnings.map((w) => w.path).sort()).toEqual([dataDir, join(dataDir, SQLITE_FILE_NAME), join(dataDir, TOKEN_SECRET_FILE)].sort());
  });

  it('moves the secret of an old database to the key file: tokens issued before stay valid', async () => {
    const dataDir = newDataDir();
    const first = await start(dataDir);
    const issued = await postIdentify(first.url, identifyRequest(first.service.bootstrap.publicKey));
    expect(issued.status).toBe(200);
    // Back to the layout of before: the secret in the settings table, no key file.
    const secret = readFileSync(join(dataDir, TOKEN_SECRET_FILE), 'utf8');
    await setSetting(first.service.ctx.store, 'visitor_token_secret', secret);
    await first.service.close();
    unlinkSync(join(dataDir, TOKEN_SECRET_FILE));

    const second = await start(dataDir);
    expect(readFileSync(join(dataDir, TOKEN_SECRET_FILE), 'utf8')).toBe(secret);
    expect(mode(join(dataDir, TOKEN_SECRET_FILE))).toBe(0o600);
    const rows = await kyselyOf(second.service.ctx.store).selectFrom('settings').select('key').execute();
    expect(rows.map((r) => r.key)).not.toContain('visitor_token_secret');

    const again = await postIdentify(second.url, identifyRequest(second.service.bootstrap.publicKey, { token: issued.json.token }));
    expect(again.json.visitor_id).toBe(issued.json.visitor_id);
    // Found by its token, not by its signals.
    const metrics = await (await fetch(`${second.url}/metrics`)).text();
    expect(metrics).toMatch(/tessera_identifications_total\{path="token"\} 1/);
  });
});

describe('secrets at rest (postgres)', () => {
  it('keeps the secret in the settings table (no shared data directory) and writes no key file', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'tessera-pg-')), 'unused');
    const t = await startTestService({ engine: 'postgres', config: { dataDir } });
    try {
      expect(await getSetting(t.service.ctx.store, 'visitor_token_secret')).toMatch(/^[\w-]{43}$/);
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      await t.close();
      rmSync(join(dataDir, '..'), { recursive: true, force: true });
    }
  });
});
