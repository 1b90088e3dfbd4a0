/**
 * The service in a process of its own, for tests that kill it (SIGKILL) or run several:
 * `tsx service-process.ts '<ServiceConfig JSON>'` prints `READY <url>` once listening and
 * closes gracefully on SIGTERM.
 */
import { createService, type ServiceConfig } from '../../src/service/index.js';

const config = JSON.parse(process.argv[2] ?? '{}') as ServiceConfig;
const service = await createService({ port: 0, host: '127.0.0.1', logLevel: 'silent', ...config });
const url = await service.listen();
process.stdout.write(`READY ${url}\n`);
process.on('SIGTERM', () => {
  void service.close().then(() => process.exit(0));
});
