import { CHANNELS, PEOPLE } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FAKE_APP } from '../bench/support/fake-adk.js';
import { apiPausePost } from '../test/support/api-pause-post.js';
import {
  type ChildAppWorld,
  oneApiKey,
  startChildAppWorld,
} from '../test/support/child-app-world.js';
import { undecidedCardsOf } from '../test/support/pause-card.js';

/**
 * kill -9 at a random point of `POST /v1/pauses`, then the agent's retry with the same
 * Idempotency-Key on the app started after it, as a client retries (network errors and 5xx):
 * every trial ends with one pause and one card, the retry's answer names that card, and no second
 * card comes later (the sweeper's grace for a card-less pause is waited out at the end). The app
 * runs as a child process against real Redis and the Slack sandbox. The same at chosen points,
 * in the integration tests: test/e2e/pause-crash.test.ts.
 */
const TRIALS = Number(process.env.FAULT_TRIALS ?? 20);
/** Posts timed before the trials: the kill lands within 1.5 × their median. */
const WARM_UP_POSTS = 5;
/** The app's grace for a pause without a card (app.ts), and two sweeps of 200 ms. */
const SWEEPER_GRACE_MS = 90_000 + 400;
/** How often and how long the agent's client tries again (as `ApprovalsClient` does, longer). */
const RETRY_ATTEMPTS = 8;
const RETRY_BACKOFF_MS = 250;

const { bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const { apiKey, apiKeys } = oneApiKey(FAKE_APP);
let world: ChildAppWorld;

beforeAll(async () => {
  world = await startChildAppWorld({
    policy: `defaults:\n  approvers: [${bob.id}]\n`,
    apiKeys,
  });
});
afterAll(async () => {
  await world?.close();
});

const pausePost = (amount: number) => apiPausePost({ apiKey, channel: OPS, amount });

const answerSchema = z.object({
  id: z.string(),
  card: z.object({ channel: z.string(), ts: z.string().nullable() }),
});

/** The client's retry: again on a network error or a 5xx, with backoff. */
async function retried(send: () => Promise<Response>): Promise<Response> {
  let last: unknown;
  for (let attempt = 0; attempt < RETRY_ATTEMPTS; attempt += 1) {
    if (attempt > 0) await sleep(RETRY_BACKOFF_MS * 2 ** Math.min(attempt - 1, 3));
    try {
      const response = await send();
      if (response.status < 500) return response;
      last = new Error(`HTTP ${response.status}`);
    } catch (error) {
      last = error;
    }
  }
  throw last;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('kill -9 at a random point of POST /v1/pauses, then the retry with the same Idempotency-Key', () => {
  it(`${TRIALS} trials: each ends with one pause and one card, named by the retry's answer`, async () => {
    let app = await world.start('app-0');
    const warmUp: number[] = [];
    for (let post = 0; post < WARM_UP_POSTS; post += 1) {
      const started = performance.now();
      expect((await pausePost(100 + post)(app.port)).status).toBe(201);
      warmUp.push(performance.now() - started);
    }
    warmUp.sort((a, b) => a - b);
    const killWithinMs = 1.5 * (warmUp[Math.floor(warmUp.length / 2)] ?? 50);

    const tally = { answeredBeforeKill: 0, created: 0, existed: 0, nullCardTs: 0 };
    const retryMs: number[] = [];
    const pauses: { trial: number; id: string; cardTs: string | null }[] = [];
    for (let trial = 0; trial < TRIALS; trial += 1) {
      const post = pausePost(3_000 + trial);
      const sent = post(app.port).then(
        (response) => response.status,
        () => undefined,
      );
      await sleep(Math.random() * killWithinMs);
      await app.kill();
      if ((await sent) !== undefined) tally.answeredBeforeKill += 1;
      app = await world.start(`app-${trial + 1}`);
      const started = performance.now();
      const response = await retried(() => post(app.port));
      retryMs.push(performance.now() - started);
      const answer = answerSchema.parse(await response.json());
      if (response.status === 201) tally.created += 1;
      if (response.status === 200) tally.existed += 1;
      if (answer.card.ts === null) tally.nullCardTs += 1;
      pauses.push({ trial, id: answer.id, cardTs: answer.card.ts });
    }
    // A pause left without a card would get one from the sweeper after its grace: wait that out,
    // so that a second card posted then is counted too.
    await sleep(SWEEPER_GRACE_MS);
    const outcomes = await Promise.all(
      pauses.map(async ({ trial, id, cardTs }) => {
        const cards = undecidedCardsOf(world.sandbox, OPS, id);
        const recorded = (await world.store.pauses.getPause(id)) !== undefined;
        return { trial, cards: cards.length, named: cards[0]?.ts === cardTs, recorded };
      }),
    );
    await app.stop();
    const bad = outcomes.filter((o) => o.cards !== 1 || !o.named || !o.recorded);
    retryMs.sort((a, b) => a - b);
    process.stdout.write(
      `\nPOST /v1/pauses kill -9 trials: ${TRIALS} (kill within ${killWithinMs.toFixed(0)} ms of the post; answered before the kill ${tally.answeredBeforeKill}); retries answered 201 ${tally.created}, 200 ${tally.existed}, card.ts null ${tally.nullCardTs}; retry took p50 ${retryMs[Math.floor(TRIALS / 2)]?.toFixed(0)} ms, max ${retryMs.at(-1)?.toFixed(0)} ms; after the sweeper's grace: one card ${outcomes.filter((o) => o.cards === 1).length}, none ${outcomes.filter((o) => o.cards === 0).length}, two or more ${outcomes.filter((o) => o.cards > 1).length}, answer naming the card ${outcomes.filter((o) => o.named).length}\n`,
    );
    if (bad.length > 0) process.stdout.write(`failed trials: ${JSON.stringify(bad)}\n`);
    expect(bad).toEqual([]);
    expect(tally.nullCardTs).toBe(0);
  });
});
