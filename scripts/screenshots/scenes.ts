import type { Locator } from 'playwright-core';
import type { Person, SandboxPage } from '../../test/support/sandbox-page.js';

/**
 * The docs' screenshots, each a scene played on the sandbox page against the whole local stack
 * (`npm start` with nothing configured: the demo agents, the demo policy). Each scene starts on a
 * cleared sandbox and ends on what its PNG shows; the runner (take.shots.ts) takes it. The app's
 * store is not cleared: the App Home's scene comes first, so that only its own calls wait there.
 */
export interface Scene {
  /** Its file name in docs/. */
  file: string;
  /** What it shows, for the run's output. */
  shows: string;
  play(open: Open): Promise<SandboxPage>;
}

/** Opens a new tab on a conversation (#ops unless told) as a person. */
type Open = (person: Person, conversation?: string) => Promise<SandboxPage>;

const OPS = 'C0OPS000001';
const PAYMENTS = 'C0PAYMENTS1';

async function approved(thread: Locator, answer: string): Promise<void> {
  await thread.getByText(answer).first().waitFor();
  await thread.getByText('Approved by').first().waitFor();
}

/** Bob edits the maintenance window Alice's run asks for, to last `minutes`, and submits it. */
async function editMaintenanceWindow(open: Open, minutes: number) {
  const ui = await open('alice');
  const thread = await ui.switchTo(
    'bob',
    await ui.runAgent('schedule maintenance for web tonight'),
  );
  await thread.getByRole('button', { name: 'Edit & approve' }).click();
  const modal = ui.page.getByTestId('modal');
  await modal.getByLabel('Duration (minutes)').fill(String(minutes));
  await modal.getByTestId('modal-submit').click();
  return { ui, thread, modal };
}

export const SCENES: Scene[] = [
  {
    file: 'app-home.png',
    shows: "Bob's App Home: what waits for him, with Approve and Reject",
    async play(open) {
      const alice = await open('alice');
      await alice.runAgent('restart web');
      await alice.runAgent('restart search');
      const ui = await open('bob');
      await ui.page.getByTestId('app-home-tab').click();
      const home = ui.page.getByTestId('app-home');
      await home.getByText('Waiting for you').waitFor();
      await home
        .getByText(/service: search\b/)
        .first()
        .waitFor();
      return ui;
    },
  },
  {
    file: 'sandbox.png',
    shows: "Alice's /agent run waits for approval: the card in the run's thread",
    async play(open) {
      const ui = await open('alice');
      await ui.runAgent('restart payments-api');
      return ui;
    },
  },
  {
    file: 'sandbox-approved.png',
    shows: 'Bob approved: the card says who, the agent answers in the thread',
    async play(open) {
      const ui = await open('alice');
      const root = await ui.runAgent('restart payments-api');
      const thread = await ui.switchTo('bob', root);
      await thread.getByRole('button', { name: 'Approve', exact: true }).click();
      await approved(thread, 'payments-api restarted');
      return ui;
    },
  },
  {
    file: 'card-payload.png',
    shows: 'a card showing the payload plain Approve sends',
    async play(open) {
      const ui = await open('alice');
      await ui.runAgent('schedule maintenance for payments-api tonight');
      await ui.page.getByTestId('thread-pane').getByText('Approve will send').waitFor();
      return ui;
    },
  },
  {
    file: 'edit-refused.png',
    shows: 'Edit & approve refuses a duration the policy forbids, on its field',
    async play(open) {
      const { ui, modal } = await editMaintenanceWindow(open, 1000);
      await modal.getByTestId('input-error').first().waitFor();
      return ui;
    },
  },
  {
    file: 'edit-diff.png',
    shows: 'an edited approval: the card shows what changed',
    async play(open) {
      const { ui, modal, thread } = await editMaintenanceWindow(open, 90);
      await modal.waitFor({ state: 'detached' });
      await thread.getByText('edited by the approver').first().waitFor();
      return ui;
    },
  },
  {
    file: 'quorum-both-approvers.png',
    shows: 'a quorum of two: the card names both approvers',
    async play(open) {
      const ui = await open('alice');
      const root = await ui.runAgent('scale web to 20');
      let thread = await ui.switchTo('bob', root);
      await thread.getByRole('button', { name: 'Approve', exact: true }).click();
      await thread.getByText('1 of 2 approvals').first().waitFor();
      thread = await ui.switchTo('carol', root);
      await thread.getByRole('button', { name: 'Approve', exact: true }).click();
      await thread
        .getByText(/Approved by @bob and @carol/i)
        .first()
        .waitFor();
      return ui;
    },
  },
  {
    file: 'dm-rerouted.png',
    shows: "a run in a DM with the app: its card goes to #ops, the DM's thread links to it",
    async play(open) {
      const ui = await open('alice', 'D0ALICE0001');
      await ui.runAgent('restart notifications', { cardHere: false });
      await ui.page.getByTestId('thread-pane').getByText('for its approvers').waitFor();
      return ui;
    },
  },
  {
    file: 'cross-channel-card.png',
    shows: "a card posted in #payments for a run in #ops, with a link to the run's thread",
    async play(open) {
      const alice = await open('alice');
      await alice.runAgent('payments transfer 250 to savings', {
        cardHere: false,
        rootText: 'transfer 250 to savings',
      });
      await alice.page
        .getByTestId('thread-pane')
        .getByRole('link', { name: 'Open the request' })
        .waitFor();
      const ui = await open('bob', PAYMENTS);
      const card = ui.page.getByTestId('message').filter({ hasText: 'transfer 250 to savings' });
      await card.last().getByRole('link', { name: 'open the run' }).waitFor();
      return ui;
    },
  },
  {
    file: 'cross-channel-run-thread.png',
    shows: "the run's thread in #ops after Bob approved in #payments",
    async play(open) {
      const ui = await open('alice');
      const root = await ui.runAgent('payments transfer 250 to savings', {
        cardHere: false,
        rootText: 'transfer 250 to savings',
      });
      await ui.goto('bob', PAYMENTS);
      const card = ui.page
        .getByTestId('message')
        .filter({ hasText: 'transfer 250 to savings' })
        .last();
      await card.getByRole('button', { name: 'Approve', exact: true }).click();
      await ui.page
        .getByTestId('confirm-dialog')
        .getByRole('button', { name: 'Approve', exact: true })
        .click();
      await card.getByText('Approved by').first().waitFor();
      await ui.goto('alice', OPS);
      const thread = await ui.openThread(root, false);
      await thread.getByText('Decided in').first().waitFor();
      return ui;
    },
  },
  {
    file: 'policy-outcomes.png',
    shows: 'the policy decides without a person: a small transfer ran, a large one is denied',
    async play(open) {
      const ui = await open('alice');
      await ui.runAgent('payments transfer 50 to savings', {
        cardHere: false,
        rootText: 'transfer 50 to savings',
      });
      await ui.page.getByTestId('thread-pane').getByText('small-transfers').first().waitFor();
      await ui.runAgent('payments transfer 9000 to acme', {
        cardHere: false,
        rootText: 'transfer 9000 to acme',
      });
      await ui.page.getByTestId('thread-pane').getByText('treasury-only').first().waitFor();
      return ui;
    },
  },
];
