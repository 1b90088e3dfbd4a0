/**
 * The set-up every agent e2e file shares: the real service (SQLite), a page server on another
 * origin (so CORS is real) and Chromium, started once per file; optionally a fresh browser
 * context and page for every test.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { startTestService, type TestService } from '../../../test/helpers/test-service.js';
import { launchChromium } from '../../helpers/chromium.js';
import { startPageServer, type PageServer } from './page-server.js';

export interface AgentSuite {
  svc: TestService;
  site: PageServer;
  browser: Browser;
}

/** Starts the suite before the file's tests and stops it after; `onReady` receives it. */
export function useAgentSuite(onReady: (suite: AgentSuite) => void): void {
  let suite: Partial<AgentSuite> = {};
  beforeAll(async () => {
    const [svc, site, browser] = await Promise.all([startTestService(), startPageServer(), launchChromium()]);
    suite = { svc, site, browser };
    onReady(suite as AgentSuite);
  });
  afterAll(async () => {
    await suite.browser?.close();
    await suite.site?.close();
    await suite.svc?.close();
  });
}

/** A new context and page of `browser()` for each test, closed after it. */
export function useFreshPage(browser: () => Browser, onReady: (context: BrowserContext, page: Page) => void): void {
  let context: BrowserContext | undefined;
  beforeEach(async () => {
    context = await browser().newContext();
    onReady(context, await context.newPage());
  });
  afterEach(async () => {
    await context?.close();
  });
}
