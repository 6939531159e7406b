import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { launchChromium } from '../../packages/slack-sandbox/test/chromium.js';
import { type Harness, type HarnessOptions, startHarness } from './app-harness.js';

/** Where browser tests leave their screenshots. */
export const ARTIFACTS = 'test-artifacts/browser';

export interface BrowserOverHarness {
  harness(): Harness;
  /** A new page of the sandbox as `person` in `conversation` (a channel id, or `home`). */
  open(person: string, conversation: string): Promise<Page>;
}

/**
 * The app on a harness (real Redis, the real adk api_server, the sandbox) and Chromium on the
 * sandbox's page, for one test file: a page per test, closed after it; a failed test leaves a
 * screenshot (`failed-<name>.png`) and prints the app's last log lines.
 */
export function browserOverHarness(options: HarnessOptions, name: string): BrowserOverHarness {
  let harness: Harness | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    harness = await startHarness(options);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await harness?.stop();
  });

  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') {
      await page?.screenshot({ path: `${ARTIFACTS}/failed-${name}.png` });
      process.stderr.write(`${harness?.logs.slice(-40).join('\n')}\n`);
    }
    await page?.close();
  });

  const started = () => {
    if (harness === undefined || browser === undefined) throw new Error('not started yet');
    return { harness, browser };
  };
  return {
    harness: () => started().harness,
    async open(person, conversation) {
      const { harness: running, browser: chromium } = started();
      page = await chromium.newPage({ viewport: { width: 1400, height: 900 } });
      // Below the test's own limit, so that a stuck wait names its locator.
      page.setDefaultTimeout(15_000);
      await page.goto(`${running.sandbox.url}/?as=${person}#${conversation}`);
      await page.getByTestId('conversation-title').first().waitFor();
      return page;
    },
  };
}
