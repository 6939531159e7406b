import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { launchChromium } from '../../packages/slack-sandbox/test/chromium.js';
import { type Harness, type HarnessOptions, startHarness } from './app-harness.js';

/** Where browser tests leave their screenshots (a failed test's among them). */
export const BROWSER_ARTIFACTS = 'test-artifacts/browser';

export interface BrowserWorld {
  harness: Harness;
  /** A page on the sandbox's size; closed after the test, and screenshotted first if it failed. */
  newPage(): Promise<Page>;
}

/**
 * The app on the harness (real Redis, the real adk api_server, the sandbox) and Chromium for one
 * browser test file: started before its tests, stopped after; a failed test leaves a screenshot
 * named after it and the app's last log lines on stderr. Call at the top of the file; the world
 * is there once the tests run.
 */
export function useBrowserWorld(options: HarnessOptions): () => BrowserWorld {
  let harness: Harness | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  beforeAll(async () => {
    mkdirSync(BROWSER_ARTIFACTS, { recursive: true });
    harness = await startHarness(options);
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await harness?.stop();
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') {
      const name = context.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
      await page?.screenshot({ path: `${BROWSER_ARTIFACTS}/failed-${name}.png` });
      process.stderr.write(`${harness?.logs.slice(-40).join('\n')}\n`);
    }
    await page?.close();
    page = undefined;
  });
  return () => {
    if (harness === undefined || browser === undefined) throw new Error('the world is not up');
    const started = browser;
    return {
      harness,
      async newPage() {
        page = await started.newPage({ viewport: { width: 1400, height: 900 } });
        // Below the test's own limit, so that a stuck wait names its locator.
        page.setDefaultTimeout(15_000);
        return page;
      },
    };
  };
}
