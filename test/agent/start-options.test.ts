import { describe, expect, test } from 'vitest';
import defaultExport, { isAgentError, isFingerprintError, start, withoutDefault, type StartOptions } from '../../src/agent/index.js';
import { REGION_ENDPOINTS, parseOptions } from '../../src/agent/options.js';
import { VERSION } from '../../src/agent/version.js';

/** The AgentError start() throws for these options. */
function startError(options: unknown) {
  try {
    start(options as StartOptions);
  } catch (e) {
    expect(isAgentError(e)).toBe(true);
    return e as { code: string; message: string; event_id: unknown; name: string };
  }
  throw new Error('start() did not throw');
}

describe('start() option rules (synchronous AgentError with the contract code and message)', () => {
  test.each([
    [undefined, 'api_key_missing', 'The `apiKey` option is not provided'],
    [{}, 'api_key_missing', 'The `apiKey` option is not provided'],
    [{ apiKey: '' }, 'api_key_missing', 'The `apiKey` option is not provided'],
    [{ apiKey: 42 }, 'api_key_invalid', 'The `apiKey` option is not a string'],
    [{ apiKey: {} }, 'api_key_invalid', 'The `apiKey` option is not a string'],
    [{ apiKey: 'k', region: 'mars' }, 'region_invalid', 'The `region` option must be "us", "eu" or "ap"'],
    [{ apiKey: 'k', region: 'toString' }, 'region_invalid', 'The `region` option must be "us", "eu" or "ap"'],
    [{ apiKey: 'k', endpoints: [] }, 'endpoints_misconfigured', 'The `endpoints` option is misconfigured'],
    [{ apiKey: 'k', endpoints: withoutDefault([]) }, 'endpoints_misconfigured', 'The `endpoints` option is misconfigured'],
    [{ apiKey: 'k', endpoints: 7 }, 'endpoints_misconfigured', 'The `endpoints` option is misconfigured'],
    [{ apiKey: 'k', endpoints: 'not a url' }, 'invalid_endpoint', 'The provided endpoint in "endpoints" parameter is not a valid URL'],
    [{ apiKey: 'k', endpoints: ['https://ok.example', 'ftp://x.example'] }, 'invalid_endpoint', 'The provided endpoint in "endpoints" parameter is not a valid URL'],
    [{ apiKey: 'k', endpoints: ['https://'] }, 'invalid_endpoint', 'The provided endpoint in "endpoints" parameter is not a valid URL'],
    [{ apiKey: 'k', endpoints: [5] }, 'invalid_endpoint', 'The provided endpoint in "endpoints" parameter is not a valid URL'],
    [{ apiKey: 'k', storageKeyPrefix: 3 }, 'storage_key_prefix_invalid', 'The `storageKeyPrefix` option is not a string'],
    [{ apiKey: 'k', urlHashing: true }, 'url_hashing_misconfigured', 'The `urlHashing` option is misconfigured'],
    [{ apiKey: 'k', urlHashing: { path: 'yes' } }, 'url_hashing_misconfigured', 'The `urlHashing` option is misconfigured'],
    [{ apiKey: 'k', urlHashing: [true] }, 'url_hashing_misconfigured', 'The `urlHashing` option is misconfigured'],
  ])('%j -> %s', (options, code, message) => {
    const e = startError(options);
    expect(e).toMatchObject({ name: 'AgentError', code, message, event_id: null });
    expect(e).toBeInstanceOf(Error);
  });

  const cache = (c: unknown) => startError({ apiKey: 'k', cache: c });
  test.each([
    ['unknown storage', { storage: 'cookie', duration: 60 }],
    ['missing storage', { duration: 60 }],
    ['duration over 43200', { storage: 'agent', duration: 43201 }],
    ['zero duration', { storage: 'agent', duration: 0 }],
    ['negative duration', { storage: 'agent', duration: -5 }],
    ['NaN duration', { storage: 'agent', duration: NaN }],
    ['Infinity duration', { storage: 'agent', duration: Infinity }],
    ['unknown duration string', { storage: 'agent', duration: 'forever' }],
    ['numeric string duration', { storage: 'agent', duration: '60' }],
    ['missing duration', { storage: 'localStorage' }],
    ['non-string cachePrefix', { storage: 'agent', duration: 60, cachePrefix: 1 }],
    ['true instead of an object', true],
    ['a string', 'sessionStorage'],
  ])('cache: %s -> cache_misconfigured', (_, c) => {
    expect(cache(c)).toMatchObject({ code: 'cache_misconfigured', message: 'The `cache` option is misconfigured' });
  });

  test('valid options return an agent synchronously', () => {
    for (const options of [
      { apiKey: 'k' },
      { apiKey: 'k', region: 'eu' },
      { apiKey: 'k', endpoints: 'https://fp.example.com' },
      { apiKey: 'k', endpoints: ['/metrics', '//cdn.example.com/x', 'http://127.0.0.1:9/'] },
      { apiKey: 'k', cache: false },
      { apiKey: 'k', cache: { storage: 'sessionStorage', duration: 'optimize-cost' } },
      { apiKey: 'k', cache: { storage: 'localStorage', duration: 'aggressive', cachePrefix: 'x' } },
      { apiKey: 'k', cache: { storage: 'agent', duration: 43200 } },
      { apiKey: 'k', cache: { storage: 'agent', duration: 0.5 } },
      { apiKey: 'k', urlHashing: {} },
      { apiKey: 'k', urlHashing: { path: true, query: false, fragment: undefined } },
      { apiKey: 'k', storageKeyPrefix: '' },
      { apiKey: 'k', integrationInfo: 'not-an-array' },
      { apiKey: 'k', region: 'us', endpoints: withoutDefault(undefined) },
    ] as StartOptions[])
      // (an endpoint or a region is required: see 'endpoint resolution')
      expect(typeof start('endpoints' in options || 'region' in options ? options : { ...options, endpoints: '/t' }).get).toBe('function');
  });
});

describe('endpoint resolution', () => {
  const ci = (e: string) => `${e}?ci=js/${VERSION}`;

  test('a named region picks its default endpoint', () => {
    expect(parseOptions({ apiKey: 'k', region: 'us' }).endpoints).toEqual([ci(REGION_ENDPOINTS.us)]);
    expect(parseOptions({ apiKey: 'k', region: 'eu' }).endpoints).toEqual([ci(REGION_ENDPOINTS.eu)]);
    expect(parseOptions({ apiKey: 'k', region: 'ap' }).endpoints).toEqual([ci(REGION_ENDPOINTS.ap)]);
    expect(new Set(Object.values(REGION_ENDPOINTS)).size).toBe(3);
  });

  test('neither endpoints nor region: start() throws endpoints_misconfigured, naming the fix', () => {
    for (const options of [{ apiKey: 'k' }, { apiKey: 'k', endpoints: withoutDefault(undefined) }] as StartOptions[]) {
      expect(() => start(options)).toThrow(expect.objectContaining({ name: 'AgentError', code: 'endpoints_misconfigured' }));
      expect(() => start(options)).toThrow(/set `endpoints` to the URL of your Tessera service/);
    }
  });

  test('endpoints without region: only those endpoints, no hosted fallback', () => {
    expect(parseOptions({ apiKey: 'k', endpoints: 'https://a.example' }).endpoints).toEqual([ci('https://a.example')]);
    expect(parseOptions({ apiKey: 'k', endpoints: ['/p', 'https://b.example'] }).endpoints).toEqual([ci('/p'), ci('https://b.example')]);
    expect(parseOptions({ apiKey: 'k', region: 'ap', endpoints: withoutDefault(undefined) } as unknown as StartOptions).endpoints).toEqual([ci(REGION_ENDPOINTS.ap)]);
  });

  test('custom endpoints with a named region: the region default appended last', () => {
    expect(parseOptions({ apiKey: 'k', region: 'eu', endpoints: ['https://a.example/p', 'https://b.example/q?x=1'] }).endpoints).toEqual([
      ci('https://a.example/p'),
      'https://b.example/q?x=1&ci=js/' + VERSION,
      ci(REGION_ENDPOINTS.eu),
    ]);
    expect(parseOptions({ apiKey: 'k', region: 'us', endpoints: 'https://a.example' }).endpoints).toEqual([ci('https://a.example'), ci(REGION_ENDPOINTS.us)]);
  });

  test('withoutDefault drops the region default, for a string or an array', () => {
    expect(parseOptions({ apiKey: 'k', region: 'eu', endpoints: withoutDefault('https://a.example') }).endpoints).toEqual([ci('https://a.example')]);
    expect(parseOptions({ apiKey: 'k', endpoints: withoutDefault(['https://a.example', '/p']) }).endpoints).toEqual([
      ci('https://a.example'),
      ci('/p'),
    ]);
  });

  test('the CDN variant defaults the key and every region to the serving origin', () => {
    const cdn = ['cdn-key', 'https://tessera.example.org'] as const;
    expect(parseOptions(undefined, cdn)).toMatchObject({ apiKey: 'cdn-key', endpoints: [ci(cdn[1])] });
    expect(parseOptions({ region: 'ap' }, cdn).endpoints).toEqual([ci(cdn[1])]);
    expect(parseOptions({ apiKey: 'other' }, cdn).apiKey).toBe('other');
  });

  test('integrationInfo becomes sdk integrations', () => {
    expect(parseOptions({ apiKey: 'k', endpoints: '/t', integrationInfo: ['react/2.1.0', 'plain'] }).integrations).toEqual([
      { name: 'react', version: '2.1.0' },
      { name: 'plain', version: '' },
    ]);
  });
});

describe('exports', () => {
  test('isAgentError, its alias, and the default export', () => {
    expect(isFingerprintError).toBe(isAgentError);
    expect(defaultExport).toEqual({ start, withoutDefault, isAgentError });
    expect(isAgentError(new Error('x'))).toBe(false);
    expect(isAgentError({ name: 'AgentError', code: 'x' })).toBe(false);
    expect(isAgentError(null)).toBe(false);
  });
});

test('the endpoints array given is neither changed nor required to be mutable', () => {
  const endpoints = Object.freeze(['https://a.example']);
  expect(parseOptions({ apiKey: 'k', region: 'us', endpoints }).endpoints).toHaveLength(2);
  expect(endpoints).toEqual(['https://a.example']);
});
