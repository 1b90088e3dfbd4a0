/** Debian's Chromium driven by playwright-core, as every e2e test of the agent uses it. */
import { chromium, type Browser } from 'playwright-core';

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
