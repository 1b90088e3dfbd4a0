import { createStart } from './agent.js';
import { isAgentError } from './errors.js';
import { withoutDefault } from './without-default.js';

export type { AgentError } from './errors.js';
export type { WithoutDefault } from './without-default.js';
export type * from './types.js';
export { VERSION } from './version.js';

/** Validates the options synchronously (throwing an AgentError) and starts collecting signals. */
export const start = createStart();
export { isAgentError, isAgentError as isFingerprintError, withoutDefault };
export default { start, withoutDefault, isAgentError };
