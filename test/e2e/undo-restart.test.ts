import { createHash, randomBytes } from 'node:crypto';
import { CHANNELS, PEOPLE } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FAKE_APP, pauseEvent } from '../../bench/support/fake-adk.js';
import { postApproveClick } from '../../bench/support/signed-approve.js';
import { type ChildAppWorld, startChildAppWorld } from '../support/child-app-world.js';
import { waitForPauseCard } from '../support/pause-card.js';

/**
 * The undo window across a crash: the app (a child process, as a replica runs it) is SIGKILLed
 * during a decision's undo window; the hold's end is in Redis, so the app started after it sends
 * the resume once the window passes, exactly once.
 */
const { bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const apiKey = randomBytes(24).toString('hex');
let world: ChildAppWorld;

beforeAll(async () => {
  world = await startChildAppWorld({
    policy: `defaults:\n  approvers: [${bob.id}]\n  undoWindow: 3s\n`,
    apiKeys: `keys:\n  - name: runbooks\n    sha256: ${createHash('sha256').update(apiKey).digest('hex')}\n    apps: [${FAKE_APP}]\n    signingSecret: ${randomBytes(24).toString('hex')}\n`,
  });
}, 120_000);

afterAll(async () => {
  await world?.close();
}, 60_000);

describe('the undo window across a crash', () => {
  it('an app killed (kill -9) during the window: the app started after it resumes once the window passes, once', async () => {
    const { sandbox, adk } = world;
    const first = await world.start('app before the crash');
    const base = `http://127.0.0.1:${first.port}`;
    const { event, confirmationId } = pauseEvent(FAKE_APP, [{ text: 'transfer 702' }]);
    const created = await fetch(`${base}/v1/pauses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        app: FAKE_APP,
        userId: 'u-undo',
        sessionId: `s-${randomBytes(4).toString('hex')}`,
        events: [event],
        resume: { mode: 'adk' },
        channel: OPS,
      }),
    });
    expect(created.status).toBe(201);
    const { id } = z.object({ id: z.string() }).parse(await created.json());
    const card = await waitForPauseCard(sandbox, OPS, id);
    const clickedAt = Date.now();
    const click = await postApproveClick({
      appUrl: base,
      card,
      voter: bob,
      sandboxUrl: sandbox.url,
      signingSecret: world.slackSecret,
    });
    expect(click.status).toBe(200);
    // The vote is recorded after the ack: the card in its undo window says it is.
    await sandbox.waitFor(() =>
      sandbox
        .messages(OPS)
        .find((m) => m.ts === card.ts && JSON.stringify(m.blocks).includes('undoes it')),
    );
    await first.kill();
    expect(adk.arrivals(confirmationId)).toEqual([]);

    await world.start('app after the crash');
    await adk.waitForResumes([confirmationId], 20_000);
    const [arrived] = adk.arrivals(confirmationId);
    expect((arrived ?? 0) - clickedAt).toBeGreaterThanOrEqual(3_000);
    // Once: no second resume comes (two more sweeps' worth).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(adk.arrivals(confirmationId)).toHaveLength(1);
  }, 60_000);
});
