import { safe } from '../safe.js';

/**
 * Private-mode heuristics per engine.
 * - Chromium before 138 gives incognito a storage quota bounded by memory rather than disk.
 *   Since 138 it reports a predictable quota in every mode (usage + a whole number of GiB), so
 *   the quota says nothing; then the origin private file system tells: incognito keeps it in
 *   memory, where a flush costs nothing and a write crosses to the browser process, while on
 *   disk the flush is an fsync (opfsFlushProbe below). The verdict is kept in localStorage,
 *   under the agent's storageKeyPrefix.
 * - Safari's private mode refuses the origin private file system.
 * - Firefox's private mode has no service workers.
 */
export const incognito = async (storagePrefix = '') => {
  const n = navigator as Navigator & { storage?: StorageManager & { getDirectory?: () => Promise<unknown> } };
  const heap = (performance as { memory?: { jsHeapSizeLimit: number } }).memory?.jsHeapSizeLimit;
  if (heap && n.storage?.estimate) {
    const { quota = 0, usage = 0 } = await n.storage.estimate();
    // The predictable quota says nothing about the mode nor the device: not sent.
    if ((quota - usage) % 2 ** 30) return { likely: quota < heap * 2, method: 'quota', quota_mb: Math.round(quota / 1048576) };
    return { likely: await opfsInMemory(storagePrefix + VERDICT_KEY), method: 'opfs_flush' };
  }
  if ('MozAppearance' in document.documentElement.style) return { likely: !n.serviceWorker, method: 'service_worker' };
  if (n.storage?.getDirectory)
    return n.storage.getDirectory().then(
      () => ({ likely: false, method: 'opfs' }),
      (e: Error) => ({ likely: /unknown transient/i.test(e.message), method: 'opfs' }),
    );
  return { likely: false, method: 'none' };
};

/** The localStorage key of the kept verdict ('1' private, '0' not), after storageKeyPrefix. */
export const VERDICT_KEY = 'pm';

/**
 * The worker's code (synchronous access handles exist only in workers), run as it starts:
 * writes and flushes one byte up to five times in a file of its own (it stops once three rounds
 * agree: the others could not outvote them), posts whether the file system lives in memory
 * (incognito), then removes the file. In memory, most rounds' flush took no measurable time
 * (browsers round performance.now() to 0.1 ms without cross-origin isolation) and the write
 * took longer. Each round votes on its own, so that one round the scheduler held up (a loaded
 * machine) cannot outweigh the others, as it could when the rounds' times were summed. It posts
 * undefined when the file system refused, then ends. Written as a function so the bundler
 * minifies it; it must not refer to anything outside itself.
 *
 * On disk a flush waits for the device; when the device is so fast that it too measures zero,
 * the writes do as well and the rounds vote "not private" (a miss, never a false alarm from
 * that). Measured on Chromium 156 on Linux: in incognito flushes 0-0.4 ms, mostly 0, writes
 * 3-9 ms; on disk flushes 0.2-26 ms, writes 0-5 ms.
 */
export function opfsFlushProbe() {
  // Three votes of five decide: the remaining rounds could not outvote them.
  const majority = 3;
  void (async () => {
    const name = 'tsr-' + Math.random();
    let root: FileSystemDirectoryHandle | undefined;
    let handle: SyncAccess | undefined;
    let inMemory: boolean | undefined;
    try {
      root = await navigator.storage.getDirectory();
      const file = (await root.getFileHandle(name, { create: true })) as FileSystemFileHandle & { createSyncAccessHandle(): Promise<SyncAccess> };
      handle = await file.createSyncAccessHandle();
      let inMemoryRounds = 0;
      // Round i: i - inMemoryRounds rounds have voted for the disk.
      for (let i = 0; inMemoryRounds < majority && i - inMemoryRounds < majority; i++) {
        const start = performance.now();
        handle.write(new Uint8Array(1), { at: i });
        const written = performance.now();
        handle.flush();
        const flush = performance.now() - written;
        if (flush < 0.05 && written - start > flush) inMemoryRounds++;
      }
      inMemory = inMemoryRounds == majority;
    } catch {
      // undefined: the source fails
    }
    // The verdict first: the page need not wait for the clean-up (a round trip to the browser
    // process). The file goes whatever happened (best effort: it may not exist).
    postMessage(inMemory);
    handle?.close();
    await root?.removeEntry(name).catch(() => {});
    close();
  })();
}

/** The part of FileSystemSyncAccessHandle (a worker-only type) that the probe uses. */
interface SyncAccess {
  write(data: Uint8Array, options: { at: number }): number;
  flush(): void;
  close(): void;
}

/**
 * Whether this origin's private file system lives in memory (opfsFlushProbe). A worker that
 * cannot start (a Content-Security-Policy without `worker-src blob:`) or a file system that
 * refuses fails the source, which the event then names in signal_errors.
 *
 * The verdict is a property of the storage partition (an incognito session has its own, empty
 * at its start, gone at its end), so it is kept there, in localStorage: the later pages of a
 * profile or of an incognito session skip the probe and its worker's start. Storage that
 * refuses just means probing every time.
 */
async function opfsInMemory(key: string): Promise<boolean> {
  const kept = await safe(() => localStorage.getItem(key));
  if (kept) return kept == '1';
  // Only Chromium 138+ comes here, which runs a blob worker without a MIME type.
  const url = URL.createObjectURL(new Blob([`(${String(opfsFlushProbe)})()`]));
  const worker = new Worker(url);
  URL.revokeObjectURL(url);
  const inMemory = await new Promise<boolean>((resolve, reject) => {
    // An error event (the worker did not start) has no data either.
    worker.onmessage = worker.onerror = (e: Event) => {
      const verdict = (e as MessageEvent<boolean | undefined>).data;
      if (verdict == null) reject(Error('opfs'));
      else resolve(verdict);
    };
  });
  void safe(() => localStorage.setItem(key, inMemory ? '1' : '0'));
  return inMemory;
}
