/** The region a workspace lives in; each region has its own Server API host. */
export type Region = 'us' | 'eu' | 'ap';

/**
 * Default Server API origin of each region. A self-hosted service has its own origin: pass it
 * as `baseUrl` instead.
 */
export const REGION_BASE_URLS: Record<Region, string> = {
  us: 'https://api.tessera.dev',
  eu: 'https://eu.api.tessera.dev',
  ap: 'https://ap.api.tessera.dev',
};

export function resolveBaseUrl(opts: { region?: Region; baseUrl?: string }): string {
  if (opts.baseUrl !== undefined) return opts.baseUrl.replace(/\/+$/, '');
  const region = opts.region ?? 'us';
  const url = REGION_BASE_URLS[region];
  if (url === undefined) throw new TypeError(`unknown region "${String(region)}"`);
  return url;
}
