import { afterEach, expect, test } from 'vitest';
import { start, withoutDefault } from '../../src/agent/index.js';

const links = () =>
  [...document.head.querySelectorAll('link[rel=preconnect]')].map((l) => [l.getAttribute('href'), l.getAttribute('crossorigin')]);
afterEach(() => document.head.querySelectorAll('link').forEach((l) => l.remove()));

test('start() preconnects to the first endpoint, anonymously like the request', async () => {
  start({ apiKey: 'k', endpoints: ['https://fp.shop.example/metrics?x=1', 'https://tessera.example'] });
  await Promise.resolve();
  expect(links()).toEqual([['https://fp.shop.example', 'anonymous']]);
});

test('no preconnect for an endpoint on the page origin', async () => {
  start({ apiKey: 'k', endpoints: withoutDefault('/tessera') });
  await Promise.resolve();
  expect(links()).toEqual([]);
});
