/**
 * The pino logger. Requests are logged without headers or query strings' secrets, and any
 * field that can carry a key or a visitor token is redacted wherever it appears.
 */
import pino, { type DestinationStream, type Logger } from 'pino';

const SECRET_FIELDS = ['api_key', 'apiKey', 'token', 'secretKey', 'publicKey', 'managementKey', 'authorization', 'auth-api-key'];

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["auth-api-key"]',
  ...SECRET_FIELDS.flatMap((f) => [`${quote(f)}`, `*.${quote(f)}`, `*.*.${quote(f)}`]),
];

function quote(field: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(field) ? field : `["${field}"]`;
}

/** The URL with the values of secret query parameters replaced. */
export function redactQuery(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  let changed = false;
  for (const name of [...params.keys()]) {
    if (SECRET_FIELDS.includes(name)) {
      params.set(name, '[Redacted]');
      changed = true;
    }
  }
  return changed ? `${url.slice(0, q)}?${params.toString()}` : url;
}

interface RequestLike {
  method: string;
  url: string;
  ip?: string;
  id?: string;
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    redact: { paths: REDACT_PATHS, censor: '[Redacted]' },
    serializers: {
      req: (req: RequestLike) => ({ method: req.method, url: redactQuery(req.url), remoteAddress: req.ip }),
      err: pino.stdSerializers.err,
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
