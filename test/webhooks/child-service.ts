/** Starts test/webhooks/service-process.ts in a child process and waits until it listens. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { ServiceConfig } from '../../src/service/index.js';

const SCRIPT = fileURLToPath(new URL('./service-process.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ChildService {
  url: string;
  process: ChildProcess;
  /** SIGKILL: no cleanup at all, as a crash. */
  kill(): Promise<void>;
  /** SIGTERM: graceful close. */
  stop(): Promise<void>;
}

/**
 * Waits for a service process that prints `READY <url>` once it listens; rejects with what it
 * printed when it exits first. The bench's own service processes use it too.
 */
export async function readyUrl(child: ChildProcess): Promise<string> {
  let output = '';
  return new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /READY (\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`service process exited (${code}) before listening: ${output}`)));
  });
}

/** Sends `signal` to `child` unless it has exited, and waits for its exit. */
export async function endProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}

export async function startChildService(config: ServiceConfig): Promise<ChildService> {
  // Node itself with tsx's loader, not the tsx CLI: the CLI runs the script in a child process
  // of its own, which a SIGKILL of the CLI would leave running.
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, JSON.stringify(config)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await readyUrl(child);
  return { url, process: child, kill: () => endProcess(child, 'SIGKILL'), stop: () => endProcess(child, 'SIGTERM') };
}
