import { availableParallelism } from 'node:os';
import { CHANNELS, SLACK_CHANNEL_RATES } from '@adk-slack-approvals/slack-sandbox';
import { findElement } from '@adk-slack-approvals/slack-sandbox/payloads';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ACTION_IDS, parseButtonValue } from '../src/slack/codecs/action-ids.js';
import { type ApiApp, startApiApp } from './support/api-app.js';
import { type BudgetRow, budgetTable } from './support/budget.js';

/**
 * 500 pauses posted at once through the approvals API (as agents elsewhere post them with the
 * ADK plugin package), their cards spread over 5 channels, against a sandbox that enforces
 * Slack's one message a second per channel (429 + Retry-After past a burst of 3). Every card must
 * reach Slack (checked in the sandbox's messages), and the whole takes at least the rate-limit
 * bound: 100 cards a channel, the burst at once, the rest at 1/s. Prints figures; asserts nothing.
 */

const PAUSES = 500;
const CHANNEL_IDS = [
  CHANNELS.general.id,
  CHANNELS.ops.id,
  CHANNELS.payments.id,
  CHANNELS.incidents.id,
  CHANNELS.releases.id,
];
const RATE = SLACK_CHANNEL_RATES['chat.postMessage'] ?? { perSecond: 1, burst: 1 };
/** How long the cards may take before the missing ones count as lost: 3 × the bound. */
const PER_CHANNEL = PAUSES / CHANNEL_IDS.length;
const BOUND_MS = ((PER_CHANNEL - RATE.burst) / RATE.perSecond) * 1_000;
const GIVE_UP_MS = 3 * BOUND_MS;

let stack: ApiApp;
const budget: BudgetRow[] = [];

function print(line: string): void {
  process.stdout.write(`[bench slack-rate] ${line}\n`);
}

beforeAll(async () => {
  stack = await startApiApp({ sandbox: { channelRates: SLACK_CHANNEL_RATES } });
  print(
    `note: wall-clock figures from a shared ${availableParallelism()}-core machine (the app, Redis, the sandbox and this process on it); the bound is set by the sandbox's clock, not the cores`,
  );
}, 120_000);

afterAll(async () => {
  print('');
  print('Budget (issues 14 and 35), this run:');
  for (const line of budgetTable(budget)) print(line);
  await stack?.stop();
}, 120_000);

/** How many cards in the five channels carry each call id's Approve button. */
function cardsByCallId(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const channel of CHANNEL_IDS) {
    for (const message of stack.sandbox.messages(channel)) {
      const found = findElement(message.blocks, { actionId: ACTION_IDS.approve });
      const callId = parseButtonValue(found?.element.value)?.callId;
      if (callId !== undefined) counts.set(callId, (counts.get(callId) ?? 0) + 1);
    }
  }
  return counts;
}

describe('cards under Slack rate limits', () => {
  it(`${PAUSES} pauses at once, cards over ${CHANNEL_IDS.length} channels at 1 msg/s/channel`, {
    timeout: GIVE_UP_MS + 60_000,
  }, async () => {
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: PAUSES }, (_, i) =>
        stack.createPause(CHANNEL_IDS[i % CHANNEL_IDS.length] ?? ''),
      ),
    );
    const answeredMs = Date.now() - started;
    const callIds = answers.map((answer) => answer.callId);
    let cards = cardsByCallId();
    while (callIds.some((id) => !cards.has(id)) && Date.now() - started < GIVE_UP_MS) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      cards = cardsByCallId();
    }
    const posts = stack.sandbox.calls('chat.postMessage');
    const posted = posts.filter((call) => call.ok);
    const refused = posts.filter((call) => call.status === 429).length;
    const lastCardMs = Math.max(...posted.map((call) => call.atMs)) - started;
    const lost = callIds.filter((id) => !cards.has(id)).length;
    const duplicated = callIds.filter((id) => (cards.get(id) ?? 0) > 1).length;
    const statuses = new Map<number, number>();
    for (const { status } of answers) statuses.set(status, (statuses.get(status) ?? 0) + 1);
    const ratio = lastCardMs / BOUND_MS;
    for (const line of [
      `${PAUSES} creates answered in ${(answeredMs / 1_000).toFixed(1)} s: ${[...statuses].map(([status, n]) => `${n} × ${status}`).join(', ')}`,
      `cards: ${cards.size} of ${PAUSES} posted, ${lost} lost, ${duplicated} posted twice; last one ${(lastCardMs / 1_000).toFixed(1)} s after the first create`,
      `chat.postMessage calls: ${posted.length} posted, ${refused} answered 429; bound ${(BOUND_MS / 1_000).toFixed(0)} s (${PER_CHANNEL} a channel, burst ${RATE.burst}, then ${RATE.perSecond}/s): ${ratio.toFixed(3)} × the bound`,
    ]) {
      print(line);
    }
    budget.push({
      figure: `${PAUSES} cards over ${CHANNEL_IDS.length} channels, 1 msg/s/channel enforced (429 + Retry-After)`,
      measured: `${lost} lost, ${(lastCardMs / 1_000).toFixed(1)} s = ${ratio.toFixed(3)} × bound`,
      floor: `${(BOUND_MS / 1_000).toFixed(0)} s (the rate-limit bound)`,
      budget: '0 lost, ≤ 1.05 × bound',
      met: lost === 0 && ratio <= 1.05,
    });
  });
});
