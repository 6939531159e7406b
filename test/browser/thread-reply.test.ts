import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '../../packages/slack-sandbox/test/chromium.js';
import { CHANNELS, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';

/**
 * A requester continues a run from the sandbox page in Chromium: a reply typed in the run's
 * thread reaches the app as a Slack event, and the agent's answer appears in the thread. The
 * app runs against real Redis and the real adk api_server (the test agents).
 */

const ARTIFACTS = 'test-artifacts/browser';

let harness: Harness;
let browser: Browser;
let page: Page | undefined;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  harness = await startHarness({
    policy: `defaults:\n  approvers: [${PEOPLE.bob.id}, ${PEOPLE.carol.id}]\n`,
  });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await harness?.stop();
});

afterEach(async (context) => {
  if (context.task.result?.state === 'fail') {
    await page?.screenshot({ path: `${ARTIFACTS}/failed-thread-reply.png` });
    process.stderr.write(`${harness.logs.slice(-40).join('\n')}\n`);
  }
  await page?.close();
});

it('a reply typed in a run thread on the page is answered by the agent in that thread', async () => {
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.setDefaultTimeout(15_000);
  await page.goto(`${harness.sandbox.url}/?as=alice#${CHANNELS.ops.id}`);
  await page.getByTestId('conversation-title').first().waitFor();

  await page.getByTestId('composer-input').fill('/agent payments good morning');
  await page.getByTestId('composer-input').press('Enter');
  const root = page.getByTestId('message').filter({ hasText: 'good morning' }).last();
  await root.getByTestId('thread-summary').click();
  const thread = page.getByTestId('thread-pane');
  await thread.getByText('Noted: good morning').waitFor();

  await page.getByTestId('thread-input').fill('what can you do?');
  await page.getByTestId('thread-input').press('Enter');
  await thread.getByText('Noted: what can you do?').waitFor();
  expect(await thread.getByText('Noted: what can you do?').count()).toBe(1);
  await page.screenshot({ path: `${ARTIFACTS}/thread-reply.png` });
});
