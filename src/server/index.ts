/**
 * The `tessera/server` entry: clients for backends. Platform APIs only (fetch), so it runs in
 * Node, edge runtimes and workers.
 */
export { ServerApiClient } from './server-api-client.js';
export { LegacyServerApiClient } from './legacy-server-api-client.js';
export { ServerApiError } from './errors.js';
export { REGION_BASE_URLS, type Region } from './regions.js';
export type { ClientOptions } from './http.js';
export type * from './server-api-types.js';
export type * from '../events/v4-event.js';
export type * from '../events/v3-event.js';
export { toV3Event, toV3Visit, toV3WebhookVisit } from '../events/v4-to-v3.js';
