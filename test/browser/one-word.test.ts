import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { CHANNELS, PEOPLE } from '../support/app-harness.js';
import { BROWSER_ARTIFACTS, useBrowserWorld } from '../support/browser-world.js';

/**
 * What a person sees says the true thing (issue 34), in Chromium on the sandbox's page, with the
 * app on real Redis and the real adk api_server (the `payments` test agent): the Home's Approve
 * asks as the card's does; a call a grant decided is one line naming who gave the grant; a
 * policy's denial reads as the policy's, with every emoji drawn; Withdraw and Revoke ask in red;
 * the undo window's end has seconds, and an undone approval reads so on the Home.
 */

const { bob, carol } = PEOPLE;
const OPS = CHANNELS.ops.id;

const POLICY = `
defaults:
  approvers: [${bob.id}, ${carol.id}]
rules:
  - name: no-invoices
    match: { app: payments, tool: pay_invoice }
    decision: deny
    reason: "Invoices go through accounts payable"
  - name: transfers
    match: { app: payments, tool: transfer_money }
    confirm: true
    grants: [session]
  - name: memos
    match: { app: payments, tool: send_memo }
    undoWindow: 30s
`;

const world = useBrowserWorld({ policy: POLICY, sweepIntervalMs: 60_000 });
let page: Page;

async function openAs(person: keyof typeof PEOPLE): Promise<void> {
  page = await world().newPage();
  await page.goto(`${world().harness.sandbox.url}/?as=${person}#${OPS}`);
  await page.getByTestId('conversation-title').first().waitFor();
}

/** `/agent <prompt>` in #ops; opens the run's thread and resolves with it and its root. */
async function runAgent(prompt: string): Promise<{ thread: Locator; root: Locator; ts: string }> {
  await page.getByTestId('composer-input').fill(`/agent ${prompt}`);
  await page.getByTestId('composer-input').press('Enter');
  // The root says "@alice asked *payments*: transfer 61": the prompt after the app's name.
  const asked = prompt.replace(/^\S+\s+/, '');
  const root = page.getByTestId('message').filter({ hasText: asked }).last();
  await root.getByTestId('thread-summary').waitFor();
  const ts = await root.getAttribute('data-ts');
  if (ts === null) throw new Error('the run has no thread root');
  return { thread: await openThread(ts), root, ts };
}

async function openThread(ts: string): Promise<Locator> {
  await page
    .locator(`[data-testid="message"][data-ts="${ts}"]`)
    .getByTestId('thread-summary')
    .click();
  return page.getByTestId('thread-pane');
}

async function switchTo(person: keyof typeof PEOPLE): Promise<void> {
  await page.getByTestId('person-switch').selectOption(PEOPLE[person].id);
  await page.getByTestId('conversation-title').filter({ hasText: '#ops' }).waitFor();
}

async function openHome(): Promise<Locator> {
  await page.getByTestId('app-home-tab').click();
  const home = page.getByTestId('app-home');
  await home.getByText('Waiting for you').waitFor();
  return home;
}

const dialog = () => page.getByTestId('confirm-dialog');

describe('what a person sees says the true thing (#34)', () => {
  it('Home Approve asks for confirmation, naming the call, as the card’s Approve does', async () => {
    await openAs('alice');
    const { ts } = await runAgent('payments transfer 61');
    await switchTo('bob');
    const home = await openHome();
    const waiting = home.locator('[data-block-type="section"]').filter({ hasText: 'amount: 61' });
    const approve = waiting
      .locator('xpath=following-sibling::*[@data-block-type="actions"][1]')
      .getByRole('button', { name: 'Approve' });
    await approve.click();
    await dialog().waitFor();
    expect(await dialog().textContent()).toContain(
      'Approve transfer_money? The agent runs it at once.',
    );
    // Back: nothing was decided.
    await dialog().getByRole('button', { name: 'Back' }).click();
    await dialog().waitFor({ state: 'detached' });
    expect(await waiting.count()).toBe(1);

    await approve.click();
    await dialog().getByRole('button', { name: 'Approve' }).click();
    await waiting.waitFor({ state: 'detached' });
    await page.getByTestId('channel-ops').click();
    const thread = await openThread(ts);
    await thread.getByText('"status":"transferred","amount":61').first().waitFor();
  });

  it('a call a grant decided is one line naming the granter, never a card', async () => {
    await openAs('alice');
    const { ts } = await runAgent('payments transfer 71');
    await switchTo('bob');
    let thread = await openThread(ts);
    await thread.getByRole('button', { name: 'Approve for this session' }).click();
    await dialog().getByRole('button', { name: 'Approve' }).click();
    await thread.getByText('"status":"transferred","amount":71').first().waitFor();

    await switchTo('alice');
    thread = await openThread(ts);
    await page.getByTestId('thread-input').fill('transfer 72');
    await page.getByTestId('thread-input').press('Enter');
    await thread.getByText('"status":"transferred","amount":72').first().waitFor();
    // The run's root says it finished: every redraw of the pause came before it.
    const root = page.locator(`[data-testid="message"][data-ts="${ts}"]`);
    await root.getByText('Done').first().waitFor();

    const line = thread.getByTestId('message').filter({ hasText: 'approved by grant' });
    expect(await line.count()).toBe(1);
    const text = (await line.textContent()) ?? '';
    expect(text).toMatch(/transfer_money\s*approved by grant/);
    expect(text).toMatch(/@bob\s*approved it for this session/);
    expect(text).not.toContain('1 of 1 approval');
    expect(text).not.toContain('Arguments');
    expect(await thread.getByText('@grant:').count()).toBe(0);
    await page.screenshot({ path: `${BROWSER_ARTIFACTS}/grant-line.png` });
  });

  it('a policy’s denial reads “Denied by policy” on the run’s root, every emoji drawn, and is not credited to approvers', async () => {
    await openAs('alice');
    const { thread, root } = await runAgent('payments pay invoice 320');
    await root.getByText('Denied by policy').first().waitFor();
    const rootText = (await root.textContent()) ?? '';
    expect(rootText).not.toMatch(/:[a-z_]+:/);
    expect(rootText).not.toContain('Rejected');
    await thread.getByText('Noted: Why these tool calls were not approved').first().waitFor();
    expect(await thread.getByText('human approvers').count()).toBe(0);
    expect((await thread.textContent()) ?? '').not.toMatch(/:[a-z_]+:/);
  });

  it('Withdraw and Revoke, which take something away, ask in red', async () => {
    await openAs('alice');
    const { thread } = await runAgent('payments memo: offsite budget');
    await thread.getByRole('button', { name: 'Withdraw' }).click();
    const withdraw = dialog().getByRole('button', { name: 'Withdraw' });
    expect(await withdraw.getAttribute('class')).toContain('danger');
    await dialog().getByRole('button', { name: 'Back' }).click();

    // Bob's grant from the test above is on his Home, with Revoke.
    await switchTo('bob');
    const home = await openHome();
    await home.getByRole('button', { name: 'Revoke' }).first().click();
    const revoke = dialog().getByRole('button', { name: 'Revoke' });
    expect(await revoke.getAttribute('class')).toContain('danger');
    await dialog().getByRole('button', { name: 'Keep it' }).click();
  });

  it('the undo window’s end is shown to the second, and an undone approval reads so on the Home', async () => {
    await openAs('alice');
    const { ts } = await runAgent('payments memo: team lunch');
    await switchTo('bob');
    const thread = await openThread(ts);
    await thread.getByRole('button', { name: 'Approve', exact: true }).click();
    const hold = thread.getByText('unless the approver undoes it');
    await hold.waitFor();
    // "today at 10:42:31 PM" (the reader's own clock), and how long the window is.
    expect((await hold.textContent()) ?? '').toMatch(/resumes .*\d:\d\d:\d\d.*30s undo window/);
    await thread.getByRole('button', { name: 'Undo' }).click();
    await thread.getByText('Undone by').first().waitFor();

    const home = await openHome();
    const recent = home.getByText(/send_memo.*approved by @bob.*then undone by @bob/);
    await recent.first().waitFor();
    expect(await home.getByText(/send_memo\s*pending/).count()).toBe(0);
  });
});
