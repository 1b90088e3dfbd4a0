export type * from './v4-event.js';
export type * from './v3-event.js';
export type * from './server-api.js';
export {
  toV3Visit,
  toV3IdentificationData,
  toV3Products,
  toV3Event,
  toV3WebhookVisit,
  camelKey,
  camelKeysDeep,
} from './v4-to-v3.js';
