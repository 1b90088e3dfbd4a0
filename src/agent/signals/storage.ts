const works = (get: () => unknown) => {
  try {
    return !!get();
  } catch {
    return false;
  }
};

export const storage = () => ({
  session_storage: works(() => sessionStorage),
  local_storage: works(() => localStorage),
  indexed_db: works(() => indexedDB),
  open_database: typeof (window as { openDatabase?: unknown }).openDatabase == 'function',
  cookies: navigator.cookieEnabled,
});
