/**
 * The `tessera-id/server` entry: clients for backends. Platform APIs only (fetch), so it runs in
 * Node, edge runtimes and workers.
 */
export { ServerApiClient } from './server-api-client.js';
export { LegacyServerApiClient } from './legacy-server-api-client.js';
export { ManagementApiClient, MANAGEMENT_API_VERSION, type ManagementApiClientOptions } from './management-api-client.js';
export { ManagementApiError, ServerApiError, type Violation } from './errors.js';
export { paginate } from './paginate.js';
export { REGION_BASE_URLS, type Region } from './regions.js';
export type { ClientOptions } from './http.js';
export type * from './server-api-types.js';
export type * from './management-api-types.js';
export type * from '../events/v4-event.js';
export type * from '../events/v3-event.js';
export { toV3Event, toV3Visit, toV3WebhookVisit } from '../events/v4-to-v3.js';
export {
  unsealEventsResponse,
  UnsealAggregateError,
  type DecryptionAlgorithm,
  type DecryptionKey,
  type UnsealFailure,
  type UnsealFailureReason,
} from './unseal.js';
export { isValidWebhookSignature, isValidWebhookSignatureAsync, type WebhookSignatureInput } from './webhook-signature.js';
export { WEBHOOK_SIGNATURE_HEADER } from '../events/webhook-signature.js';
