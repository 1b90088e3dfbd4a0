/**
 * Files at rest readable by the service's user only: the data directory 700, the database
 * files and the token key 600. Set with chmod after creation, so the process umask does not
 * matter; an existing directory or file that is looser is tightened, with a warning, because
 * someone may rely on the old access.
 */
import { chmodSync, mkdirSync, statSync } from 'node:fs';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

export type Warn = (message: string, details: Record<string, unknown>) => void;

function tighten(path: string, mode: number, what: string, warn: Warn): void {
  const current = statSync(path).mode & 0o777;
  if ((current & ~mode) === 0) return;
  chmodSync(path, mode);
  warn(`tightened the permissions of the ${what}`, { path, from: current.toString(8), to: mode.toString(8) });
}

/** Creates `dir` (and its parents) if missing, and makes it 700. */
export function ensurePrivateDir(dir: string, warn: Warn): void {
  let created: string | undefined;
  try {
    statSync(dir);
  } catch {
    created = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  }
  if (created !== undefined) chmodSync(dir, PRIVATE_DIR_MODE);
  else tighten(dir, PRIVATE_DIR_MODE, 'data directory', warn);
}

/** Makes an existing file 600 (warning when it was looser and not just created). */
export function ensurePrivateFile(file: string, warn: Warn, justCreated = false): void {
  if (justCreated) chmodSync(file, PRIVATE_FILE_MODE);
  else tighten(file, PRIVATE_FILE_MODE, 'file', warn);
}
