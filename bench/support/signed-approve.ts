import type { Person, SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
import { slackSignature } from '@adk-slack-approvals/slack-sandbox/payloads';
import { approveClick } from './approve-clicks.js';

/**
 * One person's Approve click on a card, POSTed to the app's `/slack/events` signed as Slack signs
 * it, for tests and benchmarks that run the app in a child process (no sandbox driving it).
 */
export async function postApproveClick(input: {
  appUrl: string;
  card: SandboxMessage;
  voter: Person;
  sandboxUrl: string;
  signingSecret: string;
}): Promise<Response> {
  const { body } = approveClick(input);
  const timestamp = Math.floor(Date.now() / 1000);
  const response = await fetch(`${input.appUrl}/slack/events`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': slackSignature(input.signingSecret, timestamp, body),
    },
    body,
  });
  await response.body?.cancel();
  return response;
}
