import type { Locator } from 'playwright-core';
import { expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { CHANNELS, PEOPLE } from '../support/app-harness.js';
import { BROWSER_ARTIFACTS as ARTIFACTS, useBrowserWorld } from '../support/browser-world.js';

/**
 * A partly refused batch, as its approver sees it in the sandbox page in Chromium: a rejection
 * without the reason one rule asks for is stopped in the modal, naming the call; confirmed with a
 * reason after another approver decided one of the calls on its card, the modal then says what
 * became of each call (how many were rejected, which one was not decided and why), and keeps
 * saying it while the cards and the Home are redrawn. Real Redis, the real adk api_server.
 */

const { alice, bob, carol } = PEOPLE;
const OPS = CHANNELS.ops.id;

const world = useBrowserWorld({
  policy: `
defaults:
  approvers: [${bob.id}, ${carol.id}]
rules:
  - name: invoices
    match: { tool: pay_invoice }
    reasonRequired: true
`,
});

/** Selects the picker's options whose text holds each needle. */
async function pick(modal: Locator, needles: string[]): Promise<void> {
  const picker = modal.locator('select[multiple]');
  const values: string[] = [];
  for (const needle of needles) {
    const value = await picker.locator('option', { hasText: needle }).getAttribute('value');
    if (value === null) throw new Error(`no option for ${needle}`);
    values.push(value);
  }
  await picker.selectOption(values);
}

it('a partly refused batch says which call was not decided and why, and keeps saying it', {
  timeout: 90_000,
}, async () => {
  const { harness } = world();
  const invoiceRoot = await harness.runAgent(alice.id, OPS, 'payments pay invoice 921');
  const invoice = await harness.card(OPS, invoiceRoot.ts);
  const memoRoot = await harness.runAgent(alice.id, OPS, 'payments memo: offsite 922');
  const memo = await harness.card(OPS, memoRoot.ts);

  const page = await world().newPage();
  await page.goto(`${harness.sandbox.url}/?as=bob#${OPS}`);
  await page.getByTestId('conversation-title').first().waitFor();
  await page.getByTestId('app-home-tab').click();
  await page.getByRole('button', { name: 'Decide several…' }).click();
  const modal = page.getByTestId('modal');
  await pick(modal, ['921', 'offsite 922']);
  await modal.getByLabel('Reject them').check();
  await modal.getByTestId('modal-submit').click();

  // No reason: stopped in the modal, naming the call whose rule asks for one.
  await modal
    .getByText('Give a reason: rejecting pay_invoice needs one (rule invoices).')
    .waitFor();
  await page.screenshot({ path: `${ARTIFACTS}/batch-reason-needed.png` });
  await modal.getByRole('textbox').fill('raised twice');
  await modal.getByTestId('modal-submit').click();
  await modal.getByText('Reject exactly these 2 calls?').waitFor();

  // Meanwhile Carol approves the memo on its card.
  await harness.sandbox.clickButton({
    user: carol.id,
    channel: OPS,
    messageTs: memo.ts,
    actionId: ACTION_IDS.approve,
  });
  await harness.sandbox.waitFor(() =>
    JSON.stringify(harness.sandbox.message(OPS, memo.ts)?.blocks).includes('Approved'),
  );
  await modal.getByTestId('modal-submit').click();

  await modal.getByText('Of the 2 calls you picked: 1 rejected, 1 not decided.').waitFor();
  const said = await modal.textContent();
  expect(said).toMatch(/Not decided.*send_memo.*Not decided\. This was already approved by/s);
  expect(said).toMatch(/pay_invoice.*Rejected/s);
  await page.screenshot({ path: `${ARTIFACTS}/batch-partly-refused.png` });

  // The redraws that follow (the invoice's card, Bob's Home) leave the modal as it is.
  await harness.sandbox.waitFor(
    () => JSON.stringify(harness.sandbox.message(OPS, invoice.ts)?.blocks).includes('Rejected'),
    { timeoutMs: 15_000 },
  );
  await harness.sandbox.waitFor(
    () => {
      const home = JSON.stringify(harness.sandbox.home(bob.id)?.view ?? {});
      return home.includes('Recent decisions') && !home.includes('amount: 921') && home;
    },
    { timeoutMs: 15_000 },
  );
  // And one more that surely comes after the result was shown: Bob opens his Home again.
  const shownHome = harness.sandbox.home(bob.id)?.hash;
  harness.sandbox.openAppHome(bob.id);
  await harness.sandbox.waitFor(() => harness.sandbox.home(bob.id)?.hash !== shownHome);
  await page.getByText('Recent decisions').first().waitFor();
  expect(await modal.textContent()).toBe(said);
  await page.screenshot({ path: `${ARTIFACTS}/batch-partly-refused-after-redraws.png` });
  expect((await harness.pauseOf(invoice)).gates[0]?.state).toBe('rejected');
  expect((await harness.pauseOf(memo)).gates[0]?.decision?.by).toBe(carol.id);
});
