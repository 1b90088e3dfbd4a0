import { describe, expect, it } from 'vitest';
import { errorFromResponse, ServerApiError } from '../../src/server/errors.js';
import { buildQuery } from '../../src/server/http.js';

describe('errorFromResponse', () => {
  it('reads code and message of the structured v4 and v3 bodies', () => {
    const v4 = errorFromResponse(404, { error: { code: 'event_not_found', message: 'event id not found' } }, null, 'v4');
    expect(v4).toBeInstanceOf(ServerApiError);
    expect(v4).toMatchObject({ status: 404, code: 'event_not_found', message: 'event id not found', retryAfter: undefined });
    const v3 = errorFromResponse(429, { error: { code: 'TooManyRequests', message: 'too many requests' } }, '7', 'v3');
    expect(v3).toMatchObject({ code: 'TooManyRequests', retryAfter: 7 });
  });

  it('derives the code from the status for plain bodies, in the dialect of the API', () => {
    expect(errorFromResponse(400, { error: 'invalid limit' }, null, 'v3')).toMatchObject({ code: 'RequestCannotBeParsed', message: 'invalid limit' });
    expect(errorFromResponse(429, { error: 'too many requests' }, '2', 'v3')).toMatchObject({ code: 'TooManyRequests', retryAfter: 2 });
    expect(errorFromResponse(403, { error: 'wrong region' }, null, 'v4')).toMatchObject({ code: 'forbidden' });
  });

  it('survives bodies from something else in between (a proxy page, nothing at all)', () => {
    expect(errorFromResponse(502, '<html>Bad gateway</html>', null, 'v4')).toMatchObject({ status: 502, code: 'failed', message: 'HTTP 502' });
    expect(errorFromResponse(503, undefined, null, 'v3')).toMatchObject({ code: 'Failed', message: 'HTTP 503' });
  });

  it('ignores a Retry-After that is not a non-negative integer of seconds', () => {
    for (const header of ['-1', '1.5', 'Wed, 21 Oct 2026 07:28:00 GMT', '']) {
      expect(errorFromResponse(429, {}, header, 'v3').retryAfter, header).toBeUndefined();
    }
    expect(errorFromResponse(429, {}, '0', 'v3').retryAfter).toBe(0);
  });
});

describe('buildQuery', () => {
  it('repeats array values, sends Dates as Unix ms and skips absent values', () => {
    const q = buildQuery({ environment: ['ae_a', 'ae_b'], start: new Date(1700000000000), limit: 5, reverse: true, linked_id: undefined, url: null });
    expect(q.toString()).toBe('environment=ae_a&environment=ae_b&start=1700000000000&limit=5&reverse=true');
  });
});
