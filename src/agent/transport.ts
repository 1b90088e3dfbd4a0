import type { IdentifyErrorResponse, IdentifyRequest, IdentifyResponse } from '../protocol/index.js';
import { agentError, type AgentError } from './errors.js';

/**
 * POSTs the request to each endpoint in turn until one answers. A network error, a timeout of
 * that attempt, or a 5xx moves on to the next endpoint; a 2xx or 4xx answer is final. Each
 * attempt but the last gets an equal share of the time left before `deadline` (Date.now() ms);
 * the last gets all of it.
 */
export async function send(endpoints: string[], request: IdentifyRequest, deadline: number): Promise<IdentifyResponse> {
  const body = JSON.stringify(request);
  let error: AgentError = agentError('network_connection');
  for (let i = 0; i < endpoints.length; i++) {
    const left = deadline - Date.now();
    if (left <= 0) throw agentError('client_timeout');
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), left / (endpoints.length - i));
    let status: number, json: (IdentifyResponse & IdentifyErrorResponse) | undefined;
    try {
      // text/plain keeps this a CORS "simple request": no preflight round trip.
      const res = await fetch(endpoints[i]!, {
        method: 'POST',
        body,
        headers: { 'Content-Type': 'text/plain' },
        signal: abort.signal,
      });
      status = res.status;
      const text = await res.text();
      try {
        json = JSON.parse(text) as typeof json; // checked field by field below
      } catch {
        json = undefined;
      }
    } catch (e) {
      error = agentError(
        abort.signal.aborted ? 'client_timeout' : (e as Error).name == 'AbortError' ? 'network_abort' : 'network_connection',
      );
      continue;
    } finally {
      clearTimeout(timer);
    }
    const serverError =
      json?.error && typeof json.error.code == 'string'
        ? agentError(json.error.code, json.error.message, json.event_id ?? null)
        : agentError('bad_response_format');
    if (status >= 500) {
      error = serverError;
      continue;
    }
    if (status < 300 && typeof json?.visitor_id == 'string' && typeof json.event_id == 'string') return json;
    throw serverError;
  }
  throw error;
}
