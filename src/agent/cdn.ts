import { CDN_API_KEY_PLACEHOLDER, CDN_ENDPOINT_PLACEHOLDER } from '../protocol/cdn.js';
import { createStart } from './agent.js';
import { isAgentError } from './errors.js';
import { withoutDefault } from './without-default.js';

export { VERSION } from './version.js';

/**
 * The agent as the service's CDN route serves it: the route replaces the placeholders with the
 * public key of the URL and its own origin, so `start()` needs no options.
 */
export const start = createStart([CDN_API_KEY_PLACEHOLDER, CDN_ENDPOINT_PLACEHOLDER]);
export { isAgentError, isAgentError as isFingerprintError, withoutDefault };
export default { start, withoutDefault, isAgentError };
