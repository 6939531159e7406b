import { PEOPLE } from '@adk-slack-approvals/slack-sandbox';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../packages/slack-sandbox/test/chromium.js';
import { loadConfig } from '../../src/config.js';
import { type RunningStack, startStack } from '../../src/dev/local-stack.js';
import { createLog } from '../../src/log.js';

/**
 * The demo shows everything (issue 34): `npm start` with nothing configured suggests a prompt for
 * each thing the demo policy does — allow, ask, deny, a scoped grant, an undo window, a batch,
 * a quorum — and each, picked on the page and sent, shows it. Chromium on the sandbox's page;
 * one page, as Alice in #ops unless a step switches.
 */

let stack: RunningStack;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  const config = loadConfig({ PORT: '0', SANDBOX_PORT: '0', LOG_LEVEL: 'error' });
  stack = await startStack(config, createLog('error', 'app'));
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.setDefaultTimeout(15_000);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function as(person: keyof typeof PEOPLE, channel = 'C0OPS000001'): Promise<void> {
  await page.goto(`${stack.sandboxUrl}/?as=${person}#${channel}`);
  await page.getByTestId('conversation-title').first().waitFor();
}

/** Picks the suggested prompt `text`, sends it, and opens its run's thread. */
async function sendSuggested(text: string): Promise<{ thread: Locator; rootTs: string }> {
  await as('alice');
  const chip = page
    .getByTestId('suggestion')
    .filter({ has: page.getByText(`/agent ${text}`, { exact: true }) });
  await chip.click();
  const prompt = await page.getByTestId('composer-input').inputValue();
  expect(prompt).toBe(`/agent ${text}`);
  await page.getByTestId('composer-input').press('Enter');
  const root = page
    .getByTestId('message')
    .filter({ hasText: text.replace(/^payments /, '') })
    .last();
  await root.getByTestId('thread-summary').click();
  return {
    thread: page.getByTestId('thread-pane'),
    rootTs: (await root.getAttribute('data-ts')) ?? '',
  };
}

/** Acts as `person` in #ops, in the thread of the run whose root is `rootTs`. */
async function inThreadAs(person: keyof typeof PEOPLE, rootTs: string): Promise<void> {
  await page.getByTestId('person-switch').selectOption(PEOPLE[person].id);
  await page.getByTestId('conversation-title').filter({ hasText: '#ops' }).waitFor();
  await page
    .locator(`[data-testid="message"][data-ts="${rootTs}"]`)
    .getByTestId('thread-summary')
    .click();
}

/** The newest message in #payments (as Bob) showing `text`: a card the policy sent there. */
async function paymentsCard(text: string): Promise<Locator> {
  await as('bob', 'C0PAYMENTS1');
  const card = page.getByTestId('message').filter({ hasText: text }).last();
  await card.getByRole('button', { name: 'Approve', exact: true }).waitFor();
  return card;
}

describe("the demo's suggested prompts", () => {
  it('the page suggests one prompt per policy outcome, and a click puts it in the message box', async () => {
    await as('alice');
    const chips = page.getByTestId('suggestion');
    expect(await chips.count()).toBe(7);
    await chips.first().click();
    expect(await page.getByTestId('composer-input').inputValue()).toMatch(/^\/agent /);
  });

  it('allow: a small transfer runs at once with one line naming the rule, no card', async () => {
    const { thread } = await sendSuggested('payments transfer 50 to savings');
    await thread.getByText('small-transfers').first().waitFor();
    expect(await thread.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(0);
  });

  it('deny: a large transfer is refused and the reason reaches the agent', async () => {
    const { thread } = await sendSuggested('payments transfer 9000 to acme');
    await thread
      .getByText(/treasury desk/)
      .first()
      .waitFor();
    expect(await thread.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(0);
  });

  it('ask: a mid-size transfer asks in #payments', async () => {
    const { thread } = await sendSuggested('payments transfer 250 to savings');
    await thread.getByRole('link', { name: 'Open the request' }).waitFor();
    await paymentsCard('transfer 250 to savings');
  });

  it('a scoped grant: "Approve for this session" approves the next restart of the run at once', async () => {
    const { thread, rootTs } = await sendSuggested('restart payments-api');
    await thread.getByRole('button', { name: 'Approve for this session' }).waitFor();
    await inThreadAs('bob', rootTs);
    await thread.getByRole('button', { name: 'Approve for this session' }).click();
    await thread.getByText('payments-api restarted').waitFor();

    await inThreadAs('alice', rootTs);
    await page.getByTestId('thread-input').fill('restart ledger');
    await page.getByTestId('thread-input').press('Enter');
    await thread.getByText('ledger restarted').waitFor();
    await thread.getByText(/grant/).first().waitFor();
    expect(await thread.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(0);
  });

  it('an undo window: after the approval of an invoice, the card offers Undo', async () => {
    await sendSuggested('payments pay invoice INV-1042');
    const card = await paymentsCard('INV-1042');
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    await card.getByRole('button', { name: 'Undo' }).waitFor();
  });

  it('a batch: two restarts wait on the App Home, which offers to decide several at once', async () => {
    await sendSuggested('restart payments-api and ledger');
    await page.getByTestId('person-switch').selectOption(PEOPLE.carol.id);
    await page.getByTestId('app-home-tab').click();
    await page.getByTestId('app-home').getByRole('button', { name: 'Decide several…' }).waitFor();
  });

  it('a quorum: scaling out needs two approvers', async () => {
    const { thread } = await sendSuggested('scale web to 20');
    await thread
      .getByText(/of 2 approvals/)
      .first()
      .waitFor();
  });
});
