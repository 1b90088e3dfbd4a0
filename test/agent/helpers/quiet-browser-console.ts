/**
 * happy-dom prints what a browser's console would show for failed requests ("POST <url> 503
 * (Service Unavailable)", the network error of a dead endpoint) on the worker's own console.
 * Tests provoke those on purpose and assert on the agent's errors instead, so they are dropped
 * here; anything else still prints.
 */
import nodeConsole from 'node:console';

const HTTP_STATUS_LINE = /^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) \S+ \d{3} \(/;
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'UND_ERR_SOCKET']);

const error = nodeConsole.error.bind(nodeConsole);
nodeConsole.error = (...args: unknown[]) => {
  const [first] = args;
  if (args.length === 1 && typeof first === 'string' && HTTP_STATUS_LINE.test(first)) return;
  if (args.length === 1 && first instanceof Error && NETWORK_CODES.has((first as NodeJS.ErrnoException).code ?? '')) return;
  error(...args);
};
