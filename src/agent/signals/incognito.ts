/**
 * Private-mode heuristics per engine. Chromium gives incognito a storage quota bounded by
 * memory rather than disk; Safari's private mode refuses the origin private file system;
 * Firefox's private mode has no service workers.
 */
export const incognito = async () => {
  const n = navigator as Navigator & { storage?: StorageManager & { getDirectory?: () => Promise<unknown> } };
  const heap = (performance as { memory?: { jsHeapSizeLimit: number } }).memory?.jsHeapSizeLimit;
  if (heap && n.storage?.estimate) {
    const quota = (await n.storage.estimate()).quota || 0;
    return { likely: quota < heap * 2, method: 'quota', quota_mb: Math.round(quota / 1048576) };
  }
  if ('MozAppearance' in document.documentElement.style) return { likely: !n.serviceWorker, method: 'service_worker' };
  if (n.storage?.getDirectory)
    return n.storage.getDirectory().then(
      () => ({ likely: false, method: 'opfs' }),
      (e: Error) => ({ likely: /unknown transient/i.test(e.message), method: 'opfs' }),
    );
  return { likely: false, method: 'none' };
};
