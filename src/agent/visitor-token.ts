import { createStore, get as idbGet, set as idbSet, type UseStore } from 'idb-keyval';
import { safe, within } from './safe.js';

const YEAR_SECONDS = 31536000;
const IDB_READ_MS = 300;

const isToken = (v: unknown): v is string => typeof v == 'string' && !!v;

/**
 * The visitor token the service issues, kept under `<prefix>t` in a first-party cookie,
 * localStorage and IndexedDB (database `<prefix>db`). Reading takes the first one that
 * survives (cookie, then localStorage, then IndexedDB) and repairs the others. Every storage
 * failure (blocked cookies, disabled storage, private modes) is silent.
 */
export function visitorTokenStore(prefix: string) {
  const key = prefix + 't';
  const cookieName = encodeURIComponent(key);
  let db: UseStore | undefined;
  const idb = () => (db ||= createStore(prefix + 'db', 'kv'));

  const stores: [read: () => unknown, write: (v: string) => unknown][] = [
    [
      () => {
        const c = document.cookie.split('; ').find((c) => c.startsWith(cookieName + '='));
        return c && decodeURIComponent(c.slice(cookieName.length + 1));
      },
      (v) =>
        (document.cookie = `${cookieName}=${encodeURIComponent(v)};path=/;max-age=${YEAR_SECONDS};SameSite=Lax${
          location.protocol == 'https:' ? ';Secure' : ''
        }`),
    ],
    [() => localStorage.getItem(key), (v) => localStorage.setItem(key, v)],
    [() => within(idbGet(key, idb()), IDB_READ_MS), (v) => idbSet(key, v, idb())],
  ];

  const write = (token: string, skip: unknown[] = []) =>
    Promise.all(stores.filter((_, i) => skip[i] !== token).map(([, w]) => safe(() => w(token))));

  return {
    async read(): Promise<string | undefined> {
      const reads = stores.map(([r]) => safe(r));
      const found = await Promise.all(reads.slice(0, 2));
      // The cookie and localStorage answer at once. When either holds the token, IndexedDB (last
      // in order, several tasks away) cannot change the choice: get() does not wait for it, and
      // it is checked and repaired once it answers.
      const fast = found.find(isToken);
      found[2] = fast || (await reads[2]);
      const token = found.find(isToken);
      if (token) {
        void write(token, found);
        if (fast) void reads[2]!.then((v): unknown => v !== token && write(token, [token, token]));
      }
      return token;
    },
    write: (token: string) => write(token),
  };
}
