/**
 * A process that increments a counter in the settings table `count` times, each time reading it
 * and writing it back in one transaction, starting at `start` (ms since epoch, so that several
 * processes run at once): `tsx counter-process.ts <data dir> <count> <start>`. Prints `DONE`
 * when finished, or the error that stopped it.
 */
import { openStore } from '../../src/service/store/index.js';
import { getSetting, setSetting } from '../../src/service/store/settings.js';

const [dataDir, count, start] = process.argv.slice(2);
const store = openStore({ dataDir: dataDir! });
await new Promise((resolve) => setTimeout(resolve, Number(start) - Date.now()));
try {
  for (let i = 0; i < Number(count); i++) {
    await store.transaction(async (trx) => {
      const value = Number((await getSetting(trx, 'counter')) ?? '0');
      await setSetting(trx, 'counter', String(value + 1));
    });
  }
  process.stdout.write('DONE\n');
} catch (err) {
  process.stdout.write(`FAILED ${(err as Error).message}\n`);
} finally {
  await store.destroy();
}
