/**
 * The CDN builds of the agent carry these placeholder strings; the service replaces them with
 * the public key from the URL and its own origin when it serves `/v4/<key>` and
 * `/v4/<key>/iife.js`. Values are inserted JSON-string-escaped (without the quotes).
 */
export const CDN_API_KEY_PLACEHOLDER = '__TESSERA_CDN_API_KEY__';
export const CDN_ENDPOINT_PLACEHOLDER = '__TESSERA_CDN_ENDPOINT__';
