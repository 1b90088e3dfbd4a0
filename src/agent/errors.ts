/** The one error type of the agent: a plain Error with a stable machine `code`. */
export interface AgentError extends Error {
  name: 'AgentError';
  code: string;
  event_id: string | null;
}

// Messages of the contract (the README's agent error table lists them), plus Tessera's own
// codes for option rules the contract leaves unnamed.
const MESSAGES: Record<string, string> = {
  client_timeout: 'Client timeout',
  network_connection: 'Network connection error',
  network_abort: 'Network request aborted',
  invalid_endpoint: 'The provided endpoint in "endpoints" parameter is not a valid URL',
  bad_response_format: "Can't parse the backend response. Make sure the proper endpoints are used.",
  api_key_missing: 'The `apiKey` option is not provided',
  api_key_invalid: 'The `apiKey` option is not a string',
  cache_misconfigured: 'The `cache` option is misconfigured',
  endpoints_misconfigured: 'The `endpoints` option is misconfigured',
  region_invalid: 'The `region` option must be "us", "eu" or "ap"',
  url_hashing_misconfigured: 'The `urlHashing` option is misconfigured',
  storage_key_prefix_invalid: 'The `storageKeyPrefix` option is not a string',
  linked_id_invalid: 'The `linkedId` option must be a string of at most 256 characters',
  tags_invalid: 'The `tags` option must be an object or a primitive of at most 16 KB as JSON',
};

export const agentError = (code: string, message?: string, eventId: string | null = null): AgentError =>
  Object.assign(new Error(message || MESSAGES[code] || code), { name: 'AgentError' as const, code, event_id: eventId });

/** Throws the AgentError of `code` (expression form, for option checks). */
export const fail = (code: string, message?: string): never => {
  throw agentError(code, message);
};

export const isAgentError = (e: unknown): e is AgentError =>
  e instanceof Error && e.name === 'AgentError' && typeof (e as AgentError).code === 'string';
