// The Server API's request and response shapes live with the other wire types in src/events,
// which the service shares; the client re-exports them under their old path.
export type * from '../events/server-api.js';
