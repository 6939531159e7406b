import { expect, it } from 'vitest';
import { CHANNELS, PEOPLE } from '../support/app-harness.js';
import { BROWSER_ARTIFACTS, useBrowserWorld } from '../support/browser-world.js';

/**
 * A requester continues a run from the sandbox page in Chromium: a reply typed in the run's
 * thread reaches the app as a Slack event, and the agent's answer appears in the thread. The
 * app runs against real Redis and the real adk api_server (the test agents).
 */

const world = useBrowserWorld({
  policy: `defaults:\n  approvers: [${PEOPLE.bob.id}, ${PEOPLE.carol.id}]\n`,
});

it('a reply typed in a run thread on the page is answered by the agent in that thread', async () => {
  const page = await world().newPage();
  await page.goto(`${world().harness.sandbox.url}/?as=alice#${CHANNELS.ops.id}`);
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
  await page.screenshot({ path: `${BROWSER_ARTIFACTS}/thread-reply.png` });
});
