/** A pino destination that keeps every log line, for tests that assert on logs. */
import { Writable } from 'node:stream';

export interface LogRecord {
  level: number;
  msg?: string;
  reqId?: string;
  [field: string]: unknown;
}

export function captureLogs(): { destination: Writable; lines: string[]; records(): LogRecord[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { destination, lines, records: () => lines.map((l) => JSON.parse(l) as LogRecord) };
}
