/**
 * Runs in the page (passed to Playwright's `page.evaluate`): the agent's `start()` + `get()`
 * against a service, timed with performance.now(), and where the identification request fell
 * in that time (its resource timing entry, `ci=js/` in its URL). Shared by the agent benchmarks.
 */
export interface FirstGetTimes {
  /** start() + get(), ms. */
  total: number;
  /** From start() until the request began: the signal collection, ms. */
  signals: number;
  /** The request itself (identification included), ms. */
  request: number;
}

export const timeFirstGet = async ({ url, key }: { url: string; key: string }): Promise<FirstGetTimes> => {
  const t0 = performance.now();
  const tessera = (window as unknown as { Tessera: { start(o: object): { get(): Promise<unknown> } } }).Tessera;
  await tessera.start({ apiKey: key, endpoints: url }).get();
  const total = performance.now() - t0;
  const request = performance.getEntriesByType('resource').find((e) => e.name.includes('ci=js/'))!;
  return { total, signals: request.startTime - t0, request: request.duration };
};
