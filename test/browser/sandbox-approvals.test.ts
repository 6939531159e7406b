import { mkdirSync } from 'node:fs';
import { PEOPLE } from '@adk-slack-approvals/slack-sandbox';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../packages/slack-sandbox/test/chromium.js';
import { loadConfig } from '../../src/config.js';
import { type RunningStack, startStack } from '../../src/dev/local-stack.js';
import { createLog } from '../../src/log.js';
import { type Person, SandboxPage } from '../support/sandbox-page.js';

/**
 * What a newcomer does after `npm start`, in a real browser: the whole stack as `npm start`
 * runs it with nothing configured (the Slack sandbox, the demo agents on a real adk api_server,
 * the in-process store, the demo policy), driven through the sandbox's page in Chromium.
 * Screenshots land in test-artifacts/.
 */

const ARTIFACTS = 'test-artifacts/browser';

let stack: RunningStack;
let browser: Browser;
let page: Page;
const logs: string[] = [];

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const config = loadConfig({ PORT: '0', SANDBOX_PORT: '0', LOG_LEVEL: 'debug' });
  stack = await startStack(
    config,
    createLog('debug', 'app', (line) => logs.push(line)),
  );
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

afterEach(async (context) => {
  if (context.task.result?.state === 'fail') {
    await page?.screenshot({ path: `${ARTIFACTS}/failed-${slug(context.task.name)}.png` });
    process.stderr.write(`${logs.slice(-40).join('\n')}\n`);
  }
  await page?.close();
});

function slug(name: string): string {
  return name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
}

let ui: SandboxPage;

/** Opens a conversation (#ops unless told) as a person, in a new tab. */
async function openAs(person: Person, conversation = 'C0OPS000001'): Promise<void> {
  ui = await SandboxPage.open(browser, stack.sandboxUrl ?? '', person, conversation);
  page = ui.page;
}

const switchTo = (person: Person, rootTs: string, channel?: string): Promise<Locator> =>
  ui.switchTo(person, rootTs, channel);
const openThread = (rootTs: string, waitForCard?: boolean): Promise<Locator> =>
  ui.openThread(rootTs, waitForCard);
const runAgent = (prompt: string, options?: { cardHere?: boolean; rootText?: string }) =>
  ui.runAgent(prompt, options);

/** Saves a screenshot of what the test saw (the docs' own: scripts/screenshots/). */
async function shoot(name: string): Promise<void> {
  await page.screenshot({ path: `${ARTIFACTS}/${name}.png` });
}

describe('the approval loop in the browser', () => {
  it('a run posts a card; an approver approves and the result lands in the thread', async () => {
    await openAs('alice');
    const root = await runAgent('restart payments-api');
    expect(await page.getByTestId('thread-pane').textContent()).toContain('restart_service');
    await page.screenshot({ path: `${ARTIFACTS}/1-card.png` });

    const thread = await switchTo('bob', root);
    await thread.getByRole('button', { name: 'Approve', exact: true }).click();
    await thread.getByText('payments-api restarted').waitFor();
    await thread.getByText('Agent resumed').waitFor();
    expect(await thread.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(0);
    await page.screenshot({ path: `${ARTIFACTS}/2-approved.png` });
  });

  it("a reject with a reason: the agent acknowledges the approver's reason", async () => {
    await openAs('alice');
    const thread = await switchTo('carol', await runAgent('restart ledger'));
    await thread.getByRole('button', { name: 'Reject' }).click();
    const modal = page.getByTestId('modal');
    await modal.getByRole('textbox').fill('Ledger is mid-reconciliation; wait until 18:00.');
    await page.screenshot({ path: `${ARTIFACTS}/3-reject-modal.png` });
    await modal.getByTestId('modal-submit').click();
    await thread.getByText('mid-reconciliation').first().waitFor();
    await thread.getByText('Thanks for the feedback').waitFor();
    await page.screenshot({ path: `${ARTIFACTS}/4-rejected.png` });
  });

  it('edit & approve: an invalid value is refused in the modal, the edited window reaches the tool', async () => {
    await openAs('alice');
    const thread = await switchTo(
      'bob',
      await runAgent('schedule maintenance for payments-api tonight'),
    );
    await thread.getByRole('button', { name: 'Edit & approve' }).click();
    const modal = page.getByTestId('modal');
    const duration = modal.getByLabel('Duration (minutes)');
    await duration.fill('1.5');
    await modal.getByTestId('modal-submit').click();
    await modal.getByTestId('input-error').first().waitFor();
    await page.screenshot({ path: `${ARTIFACTS}/5-edit-invalid.png` });

    await duration.fill('90');
    await modal.getByTestId('modal-submit').click();
    await modal.waitFor({ state: 'detached' });
    await thread.getByText('90 min').first().waitFor();
    await page.screenshot({ path: `${ARTIFACTS}/6-edited.png` });
  });

  it("an outsider's click is answered privately with who may approve", async () => {
    await openAs('alice');
    const thread = await switchTo('dave', await runAgent('restart search'));
    await thread.getByRole('button', { name: 'Approve', exact: true }).click();
    const ephemeral = page.getByTestId('ephemeral').filter({ hasText: 'not among those' });
    await ephemeral.waitFor();
    expect(await ephemeral.textContent()).toContain('@oncall');
    expect(await thread.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(1);
    await page.screenshot({ path: `${ARTIFACTS}/7-outsider.png` });
  });
});

describe('cards that show what Approve approves (#12)', () => {
  it('the card shows the payload Approve will send, before any edit', async () => {
    await openAs('alice');
    await runAgent('schedule maintenance for search tonight');
    const thread = page.getByTestId('thread-pane');
    const card = thread.getByTestId('message').filter({ hasText: 'Approve will send' });
    await card.waitFor();
    const text = (await card.textContent()) ?? '';
    expect(text).toContain('"durationMinutes": 60');
    expect(text).toContain('"notifyCustomers": true');
    expect(text).toMatch(/"start": "\d{4}-\d{2}-\d{2}T22:00:00Z"/);
    await shoot('card-payload');
  });

  it('an invalid edit is refused on its field and the gate stays pending; a valid one is diffed on the card', async () => {
    await openAs('alice');
    const thread = await switchTo('bob', await runAgent('schedule maintenance for web tonight'));
    await thread.getByRole('button', { name: 'Edit & approve' }).click();
    const modal = page.getByTestId('modal');
    // A date-time picker, labelled in words; the raw key is not shown as a label.
    expect(await modal.getByLabel('Start').getAttribute('type')).toBe('datetime-local');
    expect(await modal.getByLabel('durationMinutes').count()).toBe(0);
    const duration = modal.getByLabel('Duration (minutes)');
    await duration.fill('1000');
    await modal.getByTestId('modal-submit').click();
    const error = modal.getByTestId('input-error').first();
    await error.waitFor();
    expect(await error.textContent()).toContain('480');
    await shoot('edit-refused');
    await modal.getByTestId('modal-close').click();
    await modal.waitFor({ state: 'detached' });
    // Nothing was decided: the card still offers every decision.
    expect(await thread.getByRole('button', { name: 'Edit & approve' }).count()).toBe(1);
    expect(await thread.getByText('Pending').count()).toBeGreaterThan(0);

    await thread.getByRole('button', { name: 'Edit & approve' }).click();
    await modal.getByLabel('Duration (minutes)').fill('90');
    await modal.getByTestId('modal-submit').click();
    await modal.waitFor({ state: 'detached' });
    await thread.getByText('edited by the approver').waitFor();
    expect(await thread.getByText(/durationMinutes: 60 → 90/).count()).toBe(1);
    await shoot('edit-diff');
  });

  it('a quorum card names both approvers', async () => {
    await openAs('alice');
    const root = await runAgent('scale web to 20');
    let thread = await switchTo('bob', root);
    await thread.getByRole('button', { name: 'Approve', exact: true }).click();
    await thread.getByText('1 of 2 approvals').waitFor();
    thread = await switchTo('carol', root);
    await thread.getByRole('button', { name: 'Approve', exact: true }).click();
    const decided = thread.getByText(/Approved by @bob and @carol/i);
    await decided.first().waitFor();
    await shoot('quorum-both-approvers');
  });

  it('a run from a direct message is re-routed to the approvals channel, with links both ways', async () => {
    await openAs('alice', 'D0ALICE0001');
    const root = await runAgent('restart notifications', { cardHere: false });
    const dmThread = page.getByTestId('thread-pane');
    const notice = dmThread.getByText('for its approvers');
    await notice.waitFor();
    expect(await dmThread.getByRole('link', { name: 'Open the request' }).count()).toBe(1);
    expect(root).not.toBe('');
    await shoot('dm-rerouted');

    const href = await dmThread
      .getByRole('link', { name: 'Open the request' })
      .getAttribute('href');
    expect(href).toContain('/archives/C0OPS000001/p');
    await page.goto(`${stack.sandboxUrl}/?as=alice#C0OPS000001`);
    await page.getByTestId('conversation-title').filter({ hasText: '#ops' }).waitFor();
    const card = page.getByTestId('message').filter({ hasText: 'in a direct message' }).last();
    await card.waitFor();
    expect(await card.textContent()).toContain('restart notifications');
  });

  it('a cross-channel card carries the prompt and a link to the run; the run thread hears the decision', async () => {
    await openAs('alice');
    const root = await runAgent('payments transfer 250 to savings', {
      cardHere: false,
      rootText: 'transfer 250 to savings',
    });
    const runThread = page.getByTestId('thread-pane');
    await runThread.getByRole('link', { name: 'Open the request' }).waitFor();

    await page.goto(`${stack.sandboxUrl}/?as=bob#C0PAYMENTS1`);
    await page.getByTestId('conversation-title').filter({ hasText: '#payments' }).waitFor();
    const card = page.getByTestId('message').filter({ hasText: 'transfer 250 to savings' }).last();
    await card.getByRole('link', { name: 'open the run' }).waitFor();
    expect(await card.textContent()).toMatch(/requested by @alice\s+in\s+#\s*ops/i);
    await shoot('cross-channel-card');
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    // confirm: true in the policy: Approve asks first.
    await page
      .getByTestId('confirm-dialog')
      .getByRole('button', { name: 'Approve', exact: true })
      .click();
    await card.getByText('Approved by').first().waitFor();

    await page.goto(`${stack.sandboxUrl}/?as=alice#C0OPS000001`);
    await page.getByTestId('conversation-title').filter({ hasText: '#ops' }).waitFor();
    const thread = await openThread(root, false);
    await thread.getByText('Decided in').waitFor();
    expect(await thread.getByText(/Approved by @bob/i).count()).toBeGreaterThan(0);
    await shoot('cross-channel-run-thread');
  });
});

describe('the App Home (#13)', () => {
  it("Bob's Home lists the pending card; approving there resumes the run and the card says approved", async () => {
    await openAs('alice');
    // A service no other test restarts: their cards may still wait on Bob's Home.
    const root = await runAgent('restart web');

    await page.getByTestId('person-switch').selectOption(PEOPLE.bob.id);
    await page.getByTestId('app-home-tab').click();
    const home = page.getByTestId('app-home');
    await home.getByText('Waiting for you').waitFor();
    const waiting = home
      .locator('[data-block-type="section"]')
      .filter({ hasText: /service: web\b/ });
    await waiting.getByText('restart_service').waitFor();
    await shoot('home-waiting');
    // Its buttons are in the actions block right under it (other tests' cards may wait too).
    await waiting
      .locator('xpath=following-sibling::*[@data-block-type="actions"][1]')
      .getByRole('button', { name: 'Approve', exact: true })
      .click();
    // The Home lets it go, and the decision shows under "Recent decisions".
    await waiting.waitFor({ state: 'detached' });
    await home.getByText('approved by').first().waitFor();
    await shoot('home-decided');

    await page.getByTestId('channel-ops').click();
    const thread = await openThread(root, false);
    await thread.getByText('web restarted').waitFor();
    await thread.getByText('Agent resumed').waitFor();
    expect(await thread.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(0);
  });
});

describe('withdraw and run status in the browser', () => {
  it('the requester withdraws from the card; the card, the thread and the root message say so', async () => {
    await openAs('alice');
    const rootTs = await runAgent('reboot the ledger');
    const root = page.locator(`[data-testid="message"][data-ts="${rootTs}"]`);
    await root.getByText('Waiting for approval').first().waitFor();
    const thread = page.getByTestId('thread-pane');
    await thread.getByRole('button', { name: 'Withdraw' }).click();
    await page.getByTestId('confirm-dialog').getByRole('button', { name: 'Withdraw' }).click();
    await thread.getByText('Withdrawn by').first().waitFor();
    await thread.getByText('withdrew the request').first().waitFor();
    await root.getByText('Withdrawn').first().waitFor();
    expect(await thread.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(0);
    await shoot('withdrawn');
  });
});
