import { CHANNELS, PEOPLE } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FAKE_APP } from '../../bench/support/fake-adk.js';
import { apiPausePost } from '../support/api-pause-post.js';
import { type ChildAppWorld, oneApiKey, startChildAppWorld } from '../support/child-app-world.js';
import { undecidedCardsOf } from '../support/pause-card.js';

/**
 * kill -9 of the app at chosen points of `POST /v1/pauses`, then the agent's retry with the same
 * Idempotency-Key on the app started after it: one pause, one card, and the retry's answer names
 * that card. The app runs as a child process against real Redis and the Slack sandbox, behind a
 * proxy that holds Slack's Web API calls (or only their answers) so that the app dies exactly
 * there. The same at random points, 20 times: faults/pause-kill.faults.ts.
 */
const { bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const { apiKey, apiKeys } = oneApiKey(FAKE_APP);
let world: ChildAppWorld;

beforeAll(async () => {
  world = await startChildAppWorld({
    policy: `defaults:\n  approvers: [${bob.id}]\n`,
    apiKeys,
    slackFaults: true,
  });
}, 120_000);

afterAll(async () => {
  await world?.close();
}, 60_000);

const answerSchema = z.object({
  id: z.string(),
  card: z.object({ channel: z.string(), ts: z.string().nullable() }),
});

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 300 && !condition(); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (!condition()) throw new Error('the condition was not reached in 15 s');
}

/** Posts, waits for the app to reach the point `reached` says, kills it, and retries. */
async function killAndRetry(reached: () => boolean) {
  const post = apiPausePost({ apiKey, channel: OPS, amount: 77 });
  const first = await world.start('app that dies');
  const dying = post(first.port).catch(() => undefined);
  await until(reached);
  await first.kill();
  expect(await dying).toBeUndefined();
  world.slackProxy?.clear();
  const next = await world.start('app after the crash');
  const retry = await post(next.port);
  const answer = answerSchema.parse(await retry.json());
  await next.stop();
  return { status: retry.status, answer, cards: undecidedCardsOf(world.sandbox, OPS, answer.id) };
}

describe('kill -9 during POST /v1/pauses, then the retry with the same Idempotency-Key', () => {
  it.each([
    {
      point:
        'after Slack posted the card but before its answer came back: the retry finds that card, posts none,',
      fault: 'loseAnswers',
    },
    {
      point:
        'while the card was on its way to Slack: the retry posts the one card, once the dead request’s claim lapsed,',
      fault: 'hang',
    },
  ] as const)(
    'killed $point and names it',
    async ({ fault }) => {
      world.slackProxy?.[fault]('chat.postMessage', OPS);
      const { status, answer, cards } = await killAndRetry(
        () => world.slackProxy?.heldNow('chat.postMessage', OPS) === 1,
      );
      expect(status).toBe(200);
      expect(cards).toHaveLength(1);
      expect(answer.card.ts).toBe(cards[0]?.ts);
    },
    60_000,
  );
});
