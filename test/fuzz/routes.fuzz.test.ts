/**
 * Property-based fuzzing of every route of the service, over HTTP, on SQLite and PostgreSQL.
 * For each route of one table (plus unknown routes and wrong methods) fast-check generates
 * requests with malformed path parameters, query strings, headers, keys of every kind and
 * bodies, and checks the service's promises: never a 5xx; every error (status >= 400) in the
 * body shape of the route's API family (docs/errors.md); and no row of any table changed by a
 * request that was not answered 2xx (a digest of every table before and after each request).
 *
 * Fixed seed by default (reproducible); fast-check prints seed and path on failure.
 * `TESSERA_FUZZ_RUNS` sets the runs per route (default 12); `TESSERA_FUZZ_SEED` the seed.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kyselyOf } from '../../src/service/store/index.js';
import { identifyRequest, postIdentify } from '../helpers/identify-request.js';
import { ENGINES, startTestService, type TestService } from '../helpers/test-service.js';
import { liftManagementRateLimit, mgmt } from '../management-api/helpers.js';
import { liftRateLimit } from '../server-api/fixtures.js';

const RUNS = Number(process.env.TESSERA_FUZZ_RUNS ?? 12);
const SEED = Number(process.env.TESSERA_FUZZ_SEED ?? 20261125);

type Family = 'v4' | 'v3' | 'v3-plain' | 'agent' | 'management' | 'generic' | 'ops';

interface Route {
  method: string;
  /** `:name` segments are path parameters. */
  path: string;
  family: Family;
}

/** Every route of the service, then unknown routes and known paths with wrong methods. */
const ROUTES: Route[] = [
  { method: 'POST', path: '/', family: 'agent' },
  { method: 'OPTIONS', path: '/', family: 'agent' },
  { method: 'GET', path: '/v4/:key', family: 'generic' },
  { method: 'GET', path: '/v4/:key/iife.js', family: 'generic' },
  { method: 'GET', path: '/v4/events', family: 'v4' },
  { method: 'GET', path: '/v4/events/:event_id', family: 'v4' },
  { method: 'PATCH', path: '/v4/events/:event_id', family: 'v4' },
  { method: 'DELETE', path: '/v4/visitors/:visitor_id', family: 'v4' },
  { method: 'GET', path: '/events/search', family: 'v3' },
  { method: 'GET', path: '/events/:event_id', family: 'v3' },
  { method: 'PUT', path: '/events/:event_id', family: 'v3' },
  { method: 'GET', path: '/visitors/:visitor_id', family: 'v3-plain' },
  { method: 'DELETE', path: '/visitors/:visitor_id', family: 'v3' },
  { method: 'GET', path: '/environments', family: 'management' },
  { method: 'POST', path: '/environments', family: 'management' },
  { method: 'GET', path: '/environments/:environment_id', family: 'management' },
  { method: 'PATCH', path: '/environments/:environment_id', family: 'management' },
  { method: 'DELETE', path: '/environments/:environment_id', family: 'management' },
  { method: 'GET', path: '/api-keys', family: 'management' },
  { method: 'POST', path: '/api-keys', family: 'management' },
  { method: 'GET', path: '/api-keys/:key_id', family: 'management' },
  { method: 'PATCH', path: '/api-keys/:key_id', family: 'management' },
  { method: 'DELETE', path: '/api-keys/:key_id', family: 'management' },
  { method: 'GET', path: '/filtering-rules', family: 'management' },
  { method: 'POST', path: '/filtering-rules', family: 'management' },
  { method: 'POST', path: '/filtering-rules/test', family: 'management' },
  { method: 'GET', path: '/filtering-rules/:id', family: 'management' },
  { method: 'POST', path: '/filtering-rules/:id', family: 'management' },
  { method: 'DELETE', path: '/filtering-rules/:id', family: 'management' },
  { method: 'GET', path: '/workspace/settings', family: 'management' },
  { method: 'PATCH', path: '/workspace/settings', family: 'management' },
  { method: 'GET', path: '/encryption-keys', family: 'management' },
  { method: 'POST', path: '/encryption-keys', family: 'management' },
  { method: 'GET', path: '/encryption-keys/:id', family: 'management' },
  { method: 'PATCH', path: '/encryption-keys/:id', family: 'management' },
  { method: 'POST', path: '/encryption-keys/:id/rotate', family: 'management' },
  { method: 'DELETE', path: '/encryption-keys/:id', family: 'management' },
  { method: 'GET', path: '/webhooks', family: 'management' },
  { method: 'POST', path: '/webhooks', family: 'management' },
  { method: 'GET', path: '/webhooks/:id', family: 'management' },
  { method: 'PATCH', path: '/webhooks/:id', family: 'management' },
  { method: 'DELETE', path: '/webhooks/:id', family: 'management' },
  { method: 'POST', path: '/webhooks/:id/verification', family: 'management' },
  { method: 'GET', path: '/webhooks/:id/attempts', family: 'management' },
  { method: 'POST', path: '/webhooks/:id/deliveries/:id/resend', family: 'management' },
  { method: 'GET', path: '/health', family: 'ops' },
  { method: 'GET', path: '/ready', family: 'ops' },
  { method: 'GET', path: '/metrics', family: 'ops' },
  { method: 'GET', path: '/demo/events', family: 'generic' },
  { method: 'GET', path: '/favicon.ico', family: 'generic' },
  // Unknown routes: the family of their prefix.
  { method: 'GET', path: '/v4/events/:event_id/:x', family: 'v4' },
  { method: 'POST', path: '/v4/visitors/:visitor_id', family: 'v4' },
  { method: 'GET', path: '/events/:event_id/:x', family: 'v3' },
  { method: 'PATCH', path: '/visitors/:visitor_id', family: 'v3' },
  { method: 'PUT', path: '/environments', family: 'management' },
  { method: 'GET', path: '/api-keys/:key_id/:x', family: 'management' },
  { method: 'PUT', path: '/webhooks/:id', family: 'management' },
  { method: 'PUT', path: '/encryption-keys/:id', family: 'management' },
  { method: 'POST', path: '/:x', family: 'generic' },
  { method: 'DELETE', path: '/:x/:x', family: 'generic' },
  { method: 'PUT', path: '/', family: 'generic' },
  { method: 'DELETE', path: '/health', family: 'generic' },
];

interface World {
  t: TestService;
  /** Real identifiers, so that some requests reach past the lookups. */
  ids: string[];
  /** Tokens of every kind of key, and garbage. */
  keys: string[];
  tables: string[];
}

const text = (maxLength: number) => fc.string({ unit: 'binary', maxLength });

/** A path parameter: real ids, plain, unicode, NUL, reserved characters, very long. */
function pathParam(world: World): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...world.ids),
    fc.stringMatching(/^[A-Za-z0-9._-]{1,40}$/),
    text(30),
    fc.constantFrom('\0', 'a\0b', '%00', '%2F', 'a/b', ' ', '%', '%zz', '😀', '\u202e', '\ud800', "'; drop table events; --", '${x}'),
    fc.integer({ min: 200, max: 3000 }).map((n) => 'x'.repeat(n)),
    fc.double().map(String),
  );
}

/** Percent-encoded, or as it is when it cannot be (a lone surrogate). */
function encodeOrKeep(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return value;
  }
}

/** A query string: known parameters with wrong types, unknown ones, repeated keys, huge values. */
function queryString(): fc.Arbitrary<string> {
  const known = fc.constantFrom(
    'limit', 'pagination_key', 'visitor_id', 'linked_id', 'start', 'end', 'reversed', 'bot', 'ip_address', 'suspect',
    'vpn', 'environment', 'type', 'status', 'ci', 'api_key', 'cursor', 'before', 'paginationKey', 'request_id', 'sdk_version',
  );
  const value = fc.oneof(
    text(20),
    fc.constantFrom('', '-1', '0', '1e309', 'NaN', 'true', '[]', '{}', '9'.repeat(40), '%00', '\0', 'null', '1.5', '-0'),
    fc.integer().map(String),
    fc.integer({ min: 1000, max: 3000 }).map((n) => '9'.repeat(n)),
  );
  const pair = fc.tuple(fc.oneof(known, text(10)), value);
  return fc.array(pair, { maxLength: 6 }).map((pairs) => {
    if (pairs.length === 0) return '';
    const qs = new URLSearchParams();
    for (const [k, v] of pairs) qs.append(k, v);
    return `?${qs.toString()}`;
  });
}

const CONTENT_TYPES = [
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'text/plain',
  'text/plain;charset=UTF-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'x/y',
  'application/json;;;',
  'APPLICATION/JSON',
  '',
];

/** Random JSON, deep nesting, big strings, non-JSON, empty, and bodies shaped like the real ones. */
function body(world: World): fc.Arbitrary<string | undefined> {
  const fields = fc.constantFrom(
    'name', 'type', 'status', 'rate_limit', 'permissions', 'environment', 'environment_id', 'expression', 'action', 'deny_with',
    'position', 'url', 'description', 'events', 'tag', 'tags', 'linked_id', 'suspect', 'api_key', 'signals', 'v', 'sdk', 'token',
    'visitor_deletion', 'retention_days', 'request', 'headers', 'ip', 'basic_auth', 'algorithm', 'key',
  );
  const objectLike = fc.dictionary(fc.oneof(fields, fc.string({ maxLength: 8 })), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 });
  const mutatedIdentify = fc
    .tuple(fc.constantFrom(...Object.keys(identifyRequest('x'))), fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(...world.keys))
    .map(([field, value, key]) => JSON.stringify({ ...identifyRequest(key), [field]: value }));
  return fc.oneof(
    fc.constant(undefined),
    fc.constant(''),
    fc.json({ maxDepth: 4 }),
    objectLike.map((o) => JSON.stringify(o)),
    mutatedIdentify,
    fc.constantFrom(...world.keys).map((key) => JSON.stringify(identifyRequest(key))),
    fc.integer({ min: 30, max: 3000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
    fc.integer({ min: 30, max: 200 }).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)),
    fc.integer({ min: 1000, max: 90_000 }).map((n) => JSON.stringify({ name: 'x'.repeat(n), tag: { a: 'y'.repeat(n) } })),
    text(200),
    fc.constantFrom('{', 'null', '[]', '"x"', '1', 'true', '{"__proto__":{"a":1}}', '{"a":"\\u0000"}', '\uFEFF{}', '{"a":1,"a":2}'),
  );
}

interface Request {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

function request(world: World, route: Route): fc.Arbitrary<Request> {
  const segments = route.path.split('/');
  const params = segments.map((s) =>
    s.startsWith(':')
      ? fc
          .tuple(pathParam(world), fc.boolean())
          .map(([v, encode]) => (encode ? encodeOrKeep(v) : v))
          // Dot segments, and raw separators (the URL parser reads `\` as `/`), would send the
          // request to another route (their encoded forms are generated too).
          .filter((v) => !/^(\.|%2e){1,2}$/i.test(v) && !/[/\\?#]/.test(v))
      : fc.constant(s),
  );
  const keyHeader = fc.oneof(
    fc.constant<Record<string, string>>({}),
    fc.constantFrom(...world.keys).map((k) => ({ Authorization: `Bearer ${k}` })),
    fc.constantFrom(...world.keys).map((k) => ({ 'Auth-API-Key': k })),
    fc.constantFrom(...world.keys).map((k) => ({ Authorization: k })),
    fc.constantFrom<Record<string, string>>({ Authorization: 'Basic abc' }, { Authorization: 'Bearer' }, { Authorization: '' }),
  );
  const version = fc.constantFrom<Record<string, string>>({}, { 'X-API-Version': '2025-11-20' }, { 'X-API-Version': '2025-11-20' }, { 'X-API-Version': 'x' });
  const contentType = fc.constantFrom(...CONTENT_TYPES).map((ct): Record<string, string> => (ct === undefined ? {} : { 'Content-Type': ct }));
  return fc
    .record({ segments: fc.tuple(...params), query: queryString(), key: keyHeader, version, contentType, body: body(world) })
    .map((r) => {
      const req: Request = {
        method: route.method,
        path: r.segments.join('/') + r.query,
        headers: { ...r.key, ...r.version, ...r.contentType },
        body: route.method === 'GET' || route.method === 'HEAD' ? undefined : r.body,
      };
      // Counterexamples print short: long paths and bodies are cut.
      return Object.assign(req, { [fc.toStringMethod]: () => describeRequest(req) });
    });
}

const cut = (s: string | undefined, n = 160) => (s === undefined ? 'no body' : s.length > n ? `${s.slice(0, n)}...(${s.length} chars)` : s);

function describeRequest(req: Request): string {
  return `${req.method} ${cut(req.path)} ${JSON.stringify(req.headers)} ${cut(req.body)}`;
}

/** Every row of every table, hashed: any change to stored data changes it. */
async function digest(world: World): Promise<string> {
  const db = kyselyOf(world.t.service.ctx.store);
  const hash = createHash('sha256');
  for (const table of world.tables) {
    const rows = await (db as any).selectFrom(table).selectAll().execute();
    const lines = (rows as object[]).map((row) => JSON.stringify(row, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).sort();
    hash.update(`${table}\n${lines.join('\n')}\n`);
  }
  return hash.digest('hex');
}

function isSnakeCode(code: unknown): boolean {
  return typeof code === 'string' && /^[a-z][a-z0-9_]*$/.test(code);
}

/** The contract's error body of each family (docs/errors.md); a list of what is wrong. */
function shapeProblems(family: Family, status: number, body: unknown): string[] {
  const problems: string[] = [];
  const object = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!object(body)) return [`body is not an object: ${JSON.stringify(body)?.slice(0, 200)}`];
  const error = body.error;
  if (family === 'v3-plain') {
    if (typeof error !== 'string' || Object.keys(body).length !== 1) problems.push('not {error: "<text>"}');
    return problems;
  }
  if (!object(error)) return ['no error object'];
  if (typeof error.message !== 'string') problems.push('no error.message');
  const allowed = family === 'v3' || family === 'agent' ? ['code', 'message'] : ['code', 'message', 'violations'];
  for (const key of Object.keys(error)) if (!allowed.includes(key)) problems.push(`unexpected error.${key}`);
  const topLevel = family === 'agent' ? ['v', 'error'] : ['error'];
  for (const key of Object.keys(body)) if (!topLevel.includes(key)) problems.push(`unexpected ${key}`);
  if (family === 'agent' && body.v !== 1) problems.push('agent error without v: 1');
  if (family === 'v3') {
    if (typeof error.code !== 'string' || !/^[A-Z][A-Za-z]*$/.test(error.code)) problems.push(`v3 code not PascalCase: ${String(error.code)}`);
  } else if (!isSnakeCode(error.code)) {
    problems.push(`code not snake_case: ${String(error.code)}`);
  }
  if (family === 'management' && error.code === 'request_cannot_be_parsed') problems.push('management answers invalid_request, not request_cannot_be_parsed');
  if (error.violations !== undefined && !Array.isArray(error.violations)) problems.push('violations is not an array');
  if (status >= 500 && error.code !== 'failed' && error.code !== 'Failed') problems.push('5xx');
  return problems;
}

async function send(world: World, req: Request): Promise<{ status: number; body: unknown; contentType: string | null }> {
  const res = await fetch(world.t.url + req.path, { method: req.method, headers: req.headers, body: req.body });
  const raw = await res.text();
  let parsed: unknown = raw;
  try {
    parsed = raw === '' ? undefined : JSON.parse(raw);
  } catch {
    // not JSON: the shape check reports it for errors
  }
  return { status: res.status, body: parsed, contentType: res.headers.get('content-type') };
}

describe.each(ENGINES)('fuzzing every route on %s', (engine) => {
  const world = {} as World;
  beforeAll(async () => {
    const t = await startTestService({ engine, config: { demo: true } });
    world.t = t;
    await liftManagementRateLimit(t);
    await liftRateLimit(t);
    await liftRateLimit(t, t.keys.publicKey);
    const identified = await postIdentify(t.url, identifyRequest(t.keys.publicKey));
    expect(identified.status).toBe(200);
    const env = await mgmt(t, 'POST', '/environments', { body: { name: 'Second' } });
    const secondary = await mgmt(t, 'POST', '/api-keys', { body: { type: 'secret', name: 'Fuzz', rate_limit: 1_000_000 } });
    const disabled = await mgmt(t, 'POST', '/api-keys', { body: { type: 'public', name: 'Off', environment: t.environmentId } });
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(201);
    await mgmt(t, 'PATCH', `/api-keys/${disabled.body.data.id}`, { body: { status: 'disabled' } });
    const rule = await mgmt(t, 'POST', '/filtering-rules', { body: { name: 'r', environment: t.environmentId, expression: 'true', action: 'allow' } });
    world.ids = [
      identified.json.event_id,
      identified.json.visitor_id,
      t.environmentId,
      t.workspaceId,
      t.service.bootstrap.managementKeyId,
      secondary.body?.data?.id,
      rule.body?.data?.id,
      env.body?.data?.id,
      t.keys.publicKey,
    ].filter((id): id is string => typeof id === 'string');
    world.keys = [t.keys.publicKey, t.keys.secretKey, t.keys.managementKey, disabled.body.data.token, 'x'.repeat(40), 'pk_garbage', ''];
    const tables = await kyselyOf(t.service.ctx.store).introspection.getTables();
    world.tables = tables.map((table) => table.name).filter((name) => !name.startsWith('kysely_')).sort();
  });
  afterAll(async () => {
    await world.t?.close();
  });

  it.each(ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', async (_name, route) => {
    await fc.assert(
      fc.asyncProperty(
        fc.constant(null).chain(() => request(world, route)),
        async (req) => {
          const before = await digest(world);
          const res = await send(world, req);
          const after = await digest(world);
          const problems: string[] = [];
          if (res.status >= 500) problems.push('5xx');
          if (res.status >= 400 && req.method !== 'HEAD') {
            // An empty parameter (or one the URL parser trims) can turn an unknown route into `POST /`, the agent's.
            const pathname = new URL(req.path, world.t.url).pathname;
            const family = req.method === 'POST' && pathname === '/' ? 'agent' : route.family === 'ops' ? 'generic' : route.family;
            problems.push(...shapeProblems(family, res.status, res.body));
            if (!/^application\/json/.test(res.contentType ?? '')) problems.push(`content type ${res.contentType}`);
          }
          if ((res.status < 200 || res.status >= 300) && after !== before) problems.push('a refused request changed stored data');
          if (problems.length > 0) throw new Error(`${problems.join('; ')}: answered ${res.status} ${cut(JSON.stringify(res.body), 300)}`);
        },
      ),
      { numRuns: RUNS, seed: SEED, endOnFailure: false },
    );
  }, Math.max(120_000, RUNS * 200));
});
