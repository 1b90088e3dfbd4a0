/**
 * Launches Debian's Chromium through playwright-core (Playwright cannot download browsers
 * here). The flags keep Chromium from reaching out to the closed network at start-up.
 */
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type LaunchOptions } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** A browser whose contexts are off the record (as incognito windows: storage in memory). */
export function launchChromium(options: LaunchOptions = {}): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS, ...options });
}

/**
 * A normal (not incognito) profile in `userDataDir`: its storage is on disk, and the agent
 * reports its visits as normal windows (contexts of launchChromium() are private windows to it).
 */
export function launchPersistentChromium(userDataDir: string, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  return chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM_PATH, args: ARGS, ...options });
}
