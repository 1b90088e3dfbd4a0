/**
 * The service in a process of its own, for bench/postgres-scaling.ts: `<ServiceConfig JSON>
 * <clock offset ms>` as arguments, prints `READY <url>` once listening, closes on SIGTERM. Run
 * with `--import tsx --import ./bench/compiled-code.mjs` so it is the compiled service.
 */
import { createService, type ServiceConfig } from '../src/service/index.js';

const config = JSON.parse(process.argv[2] ?? '{}') as ServiceConfig;
const offset = Number(process.argv[3] ?? 0);
const service = await createService({ port: 0, host: '127.0.0.1', logLevel: 'silent', ...config, clock: () => Date.now() + offset });
const url = await service.listen();
process.stdout.write(`READY ${url}\n`);
process.on('SIGTERM', () => {
  void service.close().then(() => process.exit(0));
});
