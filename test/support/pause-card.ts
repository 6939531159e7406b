import type { Sandbox, SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';

/**
 * The undecided cards of a pause posted through the approvals API, found by the pause id its
 * buttons carry (a decided card keeps no buttons, so it no longer matches).
 */
export function undecidedCardsOf(
  sandbox: Sandbox,
  channel: string,
  pauseId: string,
): SandboxMessage[] {
  return sandbox.messages(channel).filter((message) => {
    const blocks = JSON.stringify(message.blocks);
    return blocks.includes(pauseId) && blocks.includes(ACTION_IDS.approve);
  });
}

/** Waits for the card of a pause, with its buttons. */
export function waitForPauseCard(
  sandbox: Sandbox,
  channel: string,
  pauseId: string,
): Promise<SandboxMessage> {
  return sandbox.waitFor(() => undecidedCardsOf(sandbox, channel, pauseId)[0], {
    timeoutMs: 15_000,
  });
}

/** Waits until a card has no Approve button left (the gate closed, whatever closed it). */
export function waitForClosedCard(
  sandbox: Sandbox,
  channel: string,
  ts: string,
): Promise<SandboxMessage> {
  return sandbox.waitFor(() => {
    const now = sandbox.message(channel, ts);
    return now !== undefined && !JSON.stringify(now.blocks).includes(ACTION_IDS.approve)
      ? now
      : undefined;
  });
}
