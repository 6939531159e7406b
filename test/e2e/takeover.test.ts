import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildResume } from '../../src/adk/wire.js';
import { RESUME_LEASE_MS } from '../../src/app.js';
import { decisionsFor } from '../../src/workflow/resume-decisions.js';
import { CHANNELS, cardText, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';

const { alice, bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const POLICY = `
defaults:
  approvers: [${bob.id}]
rules: []
`;

let harness: Harness;

beforeAll(async () => {
  // A slow sweep, so that the test's own "replica" wins the first claim (see below).
  harness = await startHarness({ policy: POLICY, sweepIntervalMs: 1_000 });
});
afterAll(async () => {
  await harness?.stop();
});

describe('a resume whose replica died', () => {
  it('is taken over within one lease of the length the app uses, and its answer reaches the thread', {
    timeout: 45_000,
  }, async ({ annotate }) => {
    const run = await harness.runAgent(alice.id, OPS, 'payments transfer 64');
    const card = await harness.card(OPS, run.ts);
    const view = await harness.pauseOf(card);
    const callId = view.gates[0]?.confirmationCallId;
    if (callId === undefined) throw new Error('no gate');
    // A replica that records the vote, claims the resume with the app's lease, and dies at once:
    // it never renews and never sends the answer.
    await harness.store.pauses.vote({
      pauseId: view.pause.id,
      callId,
      voter: bob.id,
      choice: 'approve',
      now: Date.now(),
    });
    const claimedAt = Date.now();
    const claim = await harness.store.leases.claimResume({
      pauseId: view.pause.id,
      owner: 'replica-killed',
      now: claimedAt,
      leaseMs: RESUME_LEASE_MS,
    });
    // The app may have claimed it first: then there is nothing to take over, and the test says so.
    expect(claim.kind).toBe('claimed');
    const answer = await harness.reply(OPS, run.ts, 'Tool transfer_money returned');
    const tookOverMs = Date.now() - claimedAt;
    expect(answer.text).toContain('"amount":64');
    await expect
      .poll(async () => (await harness.pauseOf(card)).pause.resume, { timeout: 10_000 })
      .toMatchObject({ state: 'resumed', attempts: 2 });
    await annotate(`taken over and answered ${tookOverMs} ms after the dead replica's claim`);
  });

  it('is taken over once its lease lapses; answers the agent already has are not sent again, and what it said after them is posted', {
    timeout: 45_000,
  }, async () => {
    // Another replica records the vote and claims the resume, delivers it to ADK, then dies
    // before it can say so. (It is this test, through a second connection to the same Redis; its
    // lease is long enough to deliver the answer before the app may take over.)
    let pauseId: string | undefined;
    let root: { ts: string } | undefined;
    for (let attempt = 0; attempt < 3 && pauseId === undefined; attempt++) {
      const run = await harness.runAgent(alice.id, OPS, `payments transfer ${70 + attempt}`);
      const card = await harness.card(OPS, run.ts);
      const view = await harness.pauseOf(card);
      const [gate] = view.gates;
      if (gate === undefined) throw new Error('no gate');
      const id = view.pause.id;
      const callId = gate.confirmationCallId;
      await harness.store.pauses.vote({
        pauseId: id,
        callId,
        voter: bob.id,
        choice: 'approve',
        now: Date.now(),
      });
      const claim = await harness.store.leases.claimResume({
        pauseId: id,
        owner: 'replica-that-dies',
        now: Date.now(),
        leaseMs: 5_000,
      });
      // The app's sweeper may have claimed first; then try again with a new run.
      if (claim.kind === 'claimed') {
        pauseId = id;
        root = run;
      }
    }
    if (pauseId === undefined || root === undefined) throw new Error('never won the first claim');

    const claimed = await harness.store.pauses.getPause(pauseId);
    if (claimed === undefined) throw new Error('the pause vanished');
    const { newMessage } = buildResume(claimed.gates, decisionsFor(claimed), { resumable: false });
    for await (const _ of harness.adk.runSse({ ...claimed.pause.adk, newMessage })) {
      // Read to the end: that is when the agent has finished with the answer.
    }

    const id = pauseId;
    await expect
      .poll(async () => (await harness.store.pauses.getPause(id))?.pause.resume, {
        timeout: 20_000,
      })
      .toMatchObject({ state: 'resumed', attempts: 2 });
    expect(harness.logs.some((line) => line.includes('already has these decisions'))).toBe(true);
    // What the agent said after the answers the dead replica sent reaches the thread.
    const said = await harness.reply(OPS, root.ts, 'Tool transfer_money returned');
    expect(said.text).toMatch(/"amount":7\d/);

    const { appName, userId, sessionId } = claimed.pause.adk;
    const session = await harness.adk.getSession(appName, userId, sessionId);
    const answers = session.events.filter((event) =>
      (event.content?.parts ?? []).some(
        (part) => part.functionResponse?.name === 'adk_request_confirmation',
      ),
    );
    expect(answers).toHaveLength(1);
    // The card is updated right after the records: wait for it rather than read it at once.
    const thread = root.ts;
    await harness.sandbox.waitFor(() =>
      harness.sandbox
        .replies(OPS, thread)
        .find(
          (m) => cardText(m).includes('transfer_money') && cardText(m).includes('Agent resumed'),
        ),
    );
  });
});
