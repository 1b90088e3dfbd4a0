/**
 * Filtering rules in real Chromium: a deny rule on the page's Origin, created through the
 * Management API, makes `get()` fail with the rule's message; disabling the rule lets the next
 * `get()` through.
 */
import type { Browser, Page } from 'playwright-core';
import { expect, test } from 'vitest';
import { ManagementApiClient } from '../../src/server/index.js';
import type { TestService } from '../../test/helpers/test-service.js';
import { get, ok, startAgent } from './helpers/agent-page.js';
import { useAgentSuite, useFreshPage } from './helpers/agent-suite.js';
import type { PageServer } from './helpers/page-server.js';

let svc: TestService;
let site: PageServer;
let browser: Browser;
let page: Page;

useAgentSuite((suite) => ({ svc, site, browser } = suite));
useFreshPage(() => browser, (_context, p) => {
  page = p;
});

test("a deny rule on the page's Origin fails get() with its message; disabled, get() succeeds", async () => {
  const management = new ManagementApiClient({ apiKey: svc.keys.managementKey, baseUrl: svc.url });
  const rule = await management.createFilteringRule({
    name: 'Block the test site',
    environment: svc.environmentId,
    expression: `http.request.headers['Origin']?.[0] == '${site.origin}'`,
    action: 'deny',
    deny_with: 'Identification is not allowed from this site',
  });
  try {
    await page.goto(`${site.origin}/rules`);
    await startAgent(page, { apiKey: svc.keys.publicKey, endpoints: svc.url });

    const denied = await get(page);
    expect(denied).toMatchObject({
      ok: false,
      isAgentError: true,
      code: 'request_filtered',
      message: 'Identification is not allowed from this site',
    });

    await management.updateFilteringRule(rule.id, { status: 'disabled' });
    const allowed = ok(await get(page));
    expect(allowed.visitor_id).toMatch(/^[A-Za-z0-9]{20}$/);
  } finally {
    await management.deleteFilteringRule(rule.id);
  }
});
