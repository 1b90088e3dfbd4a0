/**
 * The `tessera` command line: `tessera start` (default) runs the service; `migrate` and
 * `keys list|create|disable|enable` work on the database directly. Every option can also come
 * from an environment variable; `--json` prints for scripts what is otherwise printed for people.
 */
import { availableParallelism } from 'node:os';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ensureBootstrap, type Bootstrap } from './bootstrap.js';
import { isServiceWorker, runWorker, startPrimary } from './cli/cluster.js';
import { ALL_OPTIONS, GENERAL_OPTIONS, KEY_OPTIONS, SERVICE_OPTIONS, serviceConfigFrom, type OptionSpec, optionValue } from './cli/options.js';
import { resolveConfig, type ResolvedConfig, type ServiceConfig } from './config.js';
import { startListening } from './index.js';
import { packageVersion } from './package-root.js';
import { parsePermissions } from './management-api/permissions.js';
import { createApiKey, deleteApiKey, findApiKeyByToken, getApiKey, isApiKeyType, listApiKeys, setApiKeyStatus } from './store/api-keys.js';
import { getEnvironment } from './store/environments.js';
import { openStore, type Engine, type Store } from './store/index.js';
import type { ApiKeysTable } from './store/schema.js';
import { getWorkspace, updateWorkspaceSettings } from './store/workspaces.js';

interface Io {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
}

const defaultIo: Io = {
  out: (text) => process.stdout.write(text + '\n'),
  err: (text) => process.stderr.write(text + '\n'),
  env: process.env,
};

type Values = Record<string, string | boolean | undefined>;

export async function main(argv: string[], io: Io = defaultIo): Promise<void> {
  let values: Values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: Object.fromEntries<NonNullable<ParseArgsConfig['options']>[string]>(
        ALL_OPTIONS.map((o) => [o.flag, { type: o.kind === 'boolean' ? 'boolean' : 'string', ...(o.short ? { short: o.short } : {}) }]),
      ),
    }) as { values: Values; positionals: string[] });
  } catch (err) {
    return fail(io, `${(err as Error).message}\nRun "tessera --help" for the commands and options.`);
  }
  if (values.version) return io.out(`tessera-id-service ${packageVersion()}`);
  const [command = 'start', sub, ...rest] = positionals;
  if (values.help || command === 'help') return io.out(helpText());
  try {
    const config = serviceConfigFrom(values, io.env);
    switch (command) {
      case 'start':
        if (sub !== undefined) return fail(io, `unexpected argument "${sub}" for start`);
        return await start(config, values, io);
      case 'migrate':
        return await withStore(config, async (store) => {
          const applied = await store.migrate();
          io.out(values.json ? JSON.stringify({ applied }) : applied.length ? `applied: ${applied.join(', ')}` : 'the database is up to date');
        });
      case 'keys':
        return await keysCommand(sub, rest, config, values, io);
      case 'settings':
        return await settingsCommand(sub, config, values, io);
      default:
        return fail(io, `unknown command "${command}"\nRun "tessera --help" for the commands and options.`);
    }
  } catch (err) {
    return fail(io, err instanceof Error ? err.message : String(err));
  }
}

function fail(io: Io, message: string): void {
  io.err(`tessera-id-service: ${message}`);
  process.exitCode = 1;
}

function optionLine(o: OptionSpec): string {
  const flag = `${o.short ? `-${o.short}, ` : '    '}--${o.flag}${o.kind === 'boolean' ? '' : o.kind === 'integer' ? ' <n>' : ' <value>'}`;
  const extra = [o.env ? `env ${o.env}` : '', o.defaultText !== undefined ? `default ${o.defaultText}` : ''].filter(Boolean).join('; ');
  return `  ${flag.padEnd(30)} ${o.help}${extra ? ` (${extra})` : ''}`;
}

export function helpText(): string {
  return [
    'tessera-id-service: the Tessera identification service (npm package tessera-id-service)',
    '',
    'Usage: tessera-id-service [command] [options]',
    '       (installed, the same command is also called tessera; npx tessera-id-service <command> runs it without installing)',
    '',
    'Commands:',
    '  start                         run the service (the default command). The first start creates a',
    '                                workspace, an environment and a public, a secret and a Management API',
    '                                key, and prints them with the URLs',
    '  migrate                       bring the database schema up to date and exit',
    '  keys list [--type <type>]     list the API keys (tokens of public keys only: the others are',
    '                                stored hashed and were shown once, when created)',
    '  keys create --type <type> --name <name> [--environment <id>] [--rate-limit <n>] [--description <text>]',
    '              [--permissions <a,b>]',
    '                                create an API key (public, secret, proxy or management) and print its token',
    '  keys disable <id|token>       disable an API key (requests with it are refused)',
    '  keys enable <id|token>        enable a disabled API key again',
    '  keys delete <id|token>        delete an API key',
    '  settings get                  show the workspace settings',
    '  settings set [--visitor-deletion-enabled true|false] [--data-retention-days <n>]',
    '                                change the workspace settings',
    '  help                          show this help',
    '',
    'Service options (start, migrate and keys use the same database options):',
    ...SERVICE_OPTIONS.map(optionLine),
    '',
    'Key options:',
    ...KEY_OPTIONS.map(optionLine),
    '',
    'General options:',
    ...GENERAL_OPTIONS.map(optionLine),
    '',
    'Examples:',
    '  npx tessera-id-service start --port 8080 --data-dir ./data',
    '  DATABASE_URL=postgres://tessera@db/tessera REDIS_URL=redis://cache:6379 tessera-id-service start --host 0.0.0.0',
    '  tessera-id-service keys list --json',
  ].join('\n');
}

async function withStore<T>(config: ServiceConfig, fn: (store: Store, resolved: ResolvedConfig) => Promise<T>): Promise<T> {
  const resolved = resolveConfig(config);
  const store = openStore({ dataDir: resolved.dataDir, databaseUrl: resolved.databaseUrl, poolSize: 2 });
  try {
    return await fn(store, resolved);
  } finally {
    await store.destroy();
  }
}

/**
 * The installation's records, created on first use. The command that creates them is the only
 * one that can show the secret and management tokens (stored hashed): it prints them to stderr,
 * which leaves stdout to the command's own (JSON) output.
 */
/** The keys a first start created, one line each (the only time their tokens can be shown). */
function createdKeyLines(bootstrap: Bootstrap): string[] {
  return [
    `  Public key            ${bootstrap.publicKey}`,
    `  Secret key            ${bootstrap.secretKey}`,
    `  Management API key    ${bootstrap.managementKey}`,
  ];
}

async function bootstrapFor(store: Store, resolved: ResolvedConfig, io: Io) {
  const { bootstrap, created } = await ensureBootstrap(store, { region: resolved.region, now: resolved.clock() });
  if (created) {
    io.err(
      [
        'First use of this database: created a workspace, an environment and API keys. The secret and',
        'Management API keys are shown this once (they are stored hashed):',
        ...createdKeyLines(bootstrap),
      ].join('\n'),
    );
  }
  return bootstrap;
}

/** An API key as the Management API shows it (`token`: only when just created, or a public key's). */
function keyJson(key: ApiKeysTable) {
  return {
    permissions: key.permissions === null ? null : (JSON.parse(key.permissions) as string[]),
    id: key.id,
    name: key.name,
    type: key.type,
    status: key.status,
    environment: key.environment_id,
    rate_limit: key.rate_limit,
    description: key.description,
    token: key.token,
    created_at: new Date(key.created_at).toISOString(),
    disabled_at: key.disabled_at === null ? null : new Date(key.disabled_at).toISOString(),
  };
}

function keysTable(keys: ApiKeysTable[]): string {
  const rows = [['ID', 'TYPE', 'STATUS', 'ENVIRONMENT', 'RATE/S', 'NAME', 'TOKEN']].concat(
    keys.map((k) => [k.id, k.type, k.status, k.environment_id ?? '(workspace)', String(k.rate_limit), k.name, k.token ?? '(stored hashed)']),
  );
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n');
}

async function keysCommand(sub: string | undefined, rest: string[], config: ServiceConfig, values: Values, io: Io): Promise<void> {
  const str = (flag: string) => optionValue(KEY_OPTIONS.find((o) => o.flag === flag)!, values, {}) as string | number | undefined;
  await withStore(config, async (store, resolved) => {
    await store.migrate();
    const bootstrap = await bootstrapFor(store, resolved, io);
    const findKey = async (ref: string | undefined) => {
      if (!ref) throw new Error(`keys ${sub} needs the key's id or token`);
      const key = (await getApiKey(store, ref)) ?? (await findApiKeyByToken(store, ref));
      if (!key) throw new Error(`no API key with id or token "${ref}"`);
      return key;
    };
    switch (sub) {
      case 'list': {
        const type = str('type');
        if (type !== undefined && !isApiKeyType(type)) throw new Error(`--type must be public, secret, proxy or management`);
        const keys = (await listApiKeys(store)).filter((k) => type === undefined || k.type === type);
        io.out(values.json ? JSON.stringify({ data: keys.map(keyJson) }, null, 2) : keys.length ? keysTable(keys) : 'no API keys');
        return;
      }
      case 'create': {
        const type = str('type');
        const name = str('name');
        if (!isApiKeyType(type)) throw new Error('keys create needs --type public, secret, proxy or management');
        if (typeof name !== 'string' || name.length < 3 || name.length > 255) throw new Error('keys create needs --name of 3 to 255 characters');
        const description = str('description');
        if (description !== undefined && (String(description).length < 3 || String(description).length > 255)) {
          throw new Error('--description must have 3 to 255 characters');
        }
        const environment = str('environment');
        // As in the Management API: public keys default to the default environment, others to the workspace.
        const environmentId = environment !== undefined ? String(environment) : type === 'public' ? bootstrap.environmentId : null;
        if (environmentId !== null) {
          if (!(await getEnvironment(store, environmentId))) throw new Error(`no environment "${environmentId}"`);
        }
        const rateLimit = str('rate-limit');
        const permissionList = str('permissions');
        if (permissionList !== undefined && type !== 'management') throw new Error('--permissions applies to management keys only');
        const permissions = permissionList === undefined ? null : parsePermissions(String(permissionList).split(','));
        if (permissions instanceof Error) throw permissions;
        const key = await createApiKey(store, {
          workspaceId: bootstrap.workspaceId,
          environmentId,
          type,
          name,
          description: description === undefined ? null : String(description),
          ...(rateLimit !== undefined ? { rateLimit: Number(rateLimit) } : {}),
          permissions,
          now: resolved.clock(),
        });
        io.out(
          values.json
            ? JSON.stringify({ data: { ...keyJson(key), token: key.token } }, null, 2)
            : `${keysTable([key])}\n\nThe token is shown this once${key.type === 'public' ? '' : ' (it is stored hashed)'}.`,
        );
        return;
      }
      case 'disable':
      case 'enable': {
        const key = await findKey(rest[0]);
        await setApiKeyStatus(store, key.id, sub === 'disable' ? 'disabled' : 'enabled', resolved.clock());
        const updated = (await getApiKey(store, key.id))!;
        io.out(values.json ? JSON.stringify({ data: keyJson(updated) }, null, 2) : `${updated.id} is now ${updated.status}`);
        return;
      }
      case 'delete': {
        const key = await findKey(rest[0]);
        await deleteApiKey(store, key.id);
        io.out(values.json ? JSON.stringify({ deleted: key.id }) : `${key.id} is deleted`);
        return;
      }
      default:
        throw new Error(
          sub ? `unknown keys command "${sub}" (list, create, disable, enable, delete)` : 'keys needs a command: list, create, disable, enable or delete',
        );
    }
  });
}

async function settingsCommand(sub: string | undefined, config: ServiceConfig, values: Values, io: Io): Promise<void> {
  const option = (flag: string) => optionValue(KEY_OPTIONS.find((o) => o.flag === flag)!, values, {});
  await withStore(config, async (store, resolved) => {
    await store.migrate();
    const bootstrap = await bootstrapFor(store, resolved, io);
    if (sub === 'set') {
      const deletion = option('visitor-deletion-enabled');
      const days = option('data-retention-days');
      if (deletion === undefined && days === undefined) throw new Error('settings set needs --visitor-deletion-enabled or --data-retention-days');
      if (deletion !== undefined && deletion !== 'true' && deletion !== 'false') throw new Error('--visitor-deletion-enabled must be true or false');
      if (days !== undefined && !(Number(days) >= 1 && Number(days) <= 3650)) throw new Error('--data-retention-days must be 1 to 3650');
      await updateWorkspaceSettings(store, bootstrap.workspaceId, {
        ...(deletion !== undefined ? { deletionEnabled: deletion === 'true' } : {}),
        ...(days !== undefined ? { retentionDays: Number(days) } : {}),
      });
    } else if (sub !== 'get') {
      throw new Error(sub ? `unknown settings command "${sub}" (get, set)` : 'settings needs a command: get or set');
    }
    const workspace = (await getWorkspace(store, bootstrap.workspaceId))!;
    const settings = { visitor_deletion_enabled: workspace.deletion_enabled === 1, data_retention_days: workspace.data_retention_days };
    io.out(
      values.json
        ? JSON.stringify({ data: settings }, null, 2)
        : [
            `visitor_deletion_enabled  ${settings.visitor_deletion_enabled}`,
            `data_retention_days       ${settings.data_retention_days ?? `(the service's --retention-days, ${resolved.retentionDays})`}`,
          ].join('\n'),
    );
  });
}

/**
 * More workers than this per core only compete for the cores and for the database's write lock
 * (identification is CPU-bound): a larger `--workers` is taken for a typo, which would otherwise
 * fork that many processes.
 */
const MAX_WORKERS_PER_CORE = 4;

/** `--workers` (TESSERA_WORKERS), by default the number of cores this process may use. */
function workerCount(values: Values, env: NodeJS.ProcessEnv): number {
  const value = optionValue(SERVICE_OPTIONS.find((o) => o.flag === 'workers')!, values, env) as number | undefined;
  const cores = availableParallelism();
  if (value === undefined) return cores;
  if (value < 1) throw new Error('--workers must be at least 1');
  const limit = MAX_WORKERS_PER_CORE * cores;
  if (value > limit) {
    throw new Error(`--workers ${value} is more than ${MAX_WORKERS_PER_CORE} per CPU core (this machine has ${cores}, so at most ${limit}): identification is CPU-bound, and more processes than cores only compete for them`);
  }
  return value;
}

async function start(config: ServiceConfig, values: Values, io: Io): Promise<void> {
  if (isServiceWorker()) return runWorker(config, (err) => fail(io, err instanceof Error ? err.message : String(err)));
  const workers = workerCount(values, io.env);
  if (workers > 1) {
    const resolved = resolveConfig(config);
    return startPrimary(config, workers, (started) =>
      printStartReport(io, values, {
        url: started.url,
        engine: started.engine,
        config: resolved,
        bootstrap: started.bootstrap,
        firstStart: started.firstStart,
        workers,
      }),
    );
  }

  const { service, url } = await startListening(config);
  // Graceful shutdown: stop accepting, finish in-flight requests, stop jobs, close DB/Redis.
  // Installed before the report is printed: a supervisor may signal as soon as it reads it.
  const stopped = new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        service.ctx.logger.warn({ signal }, 'second signal: exiting immediately');
        process.exit(1);
      }
      stopping = true;
      service.ctx.logger.info({ signal }, 'shutting down');
      service
        .close()
        .catch((err: unknown) => {
          service.ctx.logger.error({ err }, 'shutdown failed');
          process.exitCode = 1;
        })
        .finally(() => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve();
        });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });

  printStartReport(io, values, {
    url,
    engine: service.ctx.store.engine,
    config: service.ctx.config,
    bootstrap: service.bootstrap,
    firstStart: service.firstStart,
    workers: 1,
  });
  await stopped;
}

/** What `start` prints once the service listens: the URLs, and the keys on the first start. */
function printStartReport(
  io: Io,
  values: Values,
  started: { url: string; engine: Engine; config: ResolvedConfig; bootstrap: Bootstrap; firstStart: boolean; workers: number },
): void {
  const { url, engine, config, bootstrap, firstStart, workers } = started;
  const base = config.publicUrl ?? url;
  const urls = {
    demo: config.demo ? `${base}/` : null,
    ingestion: `${base}/`,
    cdn_esm: `${base}/v4/${bootstrap.publicKey}`,
    cdn_iife: `${base}/v4/${bootstrap.publicKey}/iife.js`,
    server_api: base,
  };
  const storage = engine === 'sqlite' ? `SQLite in ${config.dataDir}` : 'PostgreSQL';
  if (values.json) {
    io.out(
      JSON.stringify({
        url,
        engine,
        region: config.region,
        workers,
        first_start: firstStart,
        urls,
        ...(firstStart
          ? { keys: { public: bootstrap.publicKey, secret: bootstrap.secretKey, management: bootstrap.managementKey } }
          : { key_ids: { public: bootstrap.publicKeyId, secret: bootstrap.secretKeyId, management: bootstrap.managementKeyId } }),
      }),
    );
    return;
  }
  const processes = workers > 1 ? `, ${workers} worker processes` : '';
  const lines = [
    `Tessera ${packageVersion()} listening on ${url} (${storage}, region ${config.region}${processes})`,
    '',
    ...(urls.demo ? [`  Demo page             ${urls.demo}`] : []),
    `  Ingestion endpoint    POST ${urls.ingestion}`,
    `  CDN agent (ESM)       ${urls.cdn_esm}`,
    `  CDN agent (script)    ${urls.cdn_iife}`,
    `  Server API            ${urls.server_api}/v4/events  (Authorization: Bearer <secret key>)`,
    '',
  ];
  if (firstStart) {
    lines.push(
      'First start: created a workspace, an environment and these API keys. The secret and Management API',
      'keys are shown this once (they are stored hashed): keep them. "tessera keys create" makes new ones.',
      ...createdKeyLines(bootstrap),
      '',
    );
  } else {
    lines.push(
      `Using the existing data: public key ${bootstrap.publicKey}, secret key ${bootstrap.secretKeyId}, Management API key ${bootstrap.managementKeyId}`,
      '(ids: tokens other than public ones are stored hashed; "tessera keys list" lists the keys).',
      '',
    );
  }
  io.out(lines.join('\n'));
}
