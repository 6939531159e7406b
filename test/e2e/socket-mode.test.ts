import { afterAll, beforeAll, expect, it } from 'vitest';
import { CHANNELS, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';

const { alice, bob, carol } = PEOPLE;
const OPS = CHANNELS.ops.id;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    policy: `defaults:\n  approvers: [${bob.id}, ${carol.id}]\n`,
    socketMode: true,
    // The test follows a click's resume: keep the sweeper from taking it over.
    sweepIntervalMs: 60_000,
  });
});
afterAll(async () => {
  await harness?.stop();
});

it('runs the whole loop over Socket Mode: /agent, card, Approve, the answer, a thread reply', async () => {
  const { sandbox } = harness;
  // The app has no request URL: it reached Slack only by apps.connections.open and the socket.
  expect(sandbox.appEventsUrl()).toBeUndefined();
  await sandbox.waitFor(() => sandbox.socketConnected(), { timeoutMs: 15_000 });
  expect(sandbox.calls('apps.connections.open').at(-1)).toMatchObject({ ok: true });

  const root = await harness.runAgent(alice.id, OPS, 'payments transfer 17');
  const card = await harness.card(OPS, root.ts);
  await harness.approveUntilResumed(bob.id, OPS, card);
  await harness.reply(OPS, root.ts, 'Tool transfer_money returned');

  sandbox.postAsPerson({ user: alice.id, channel: OPS, threadTs: root.ts, text: 'thank you' });
  await harness.reply(OPS, root.ts, 'Noted: thank you');
  const reply = sandbox
    .events('message')
    .find((event) => JSON.stringify(event.envelope.event).includes('thank you'));
  expect(reply?.attempts).toEqual([
    { retryNum: 0, retryReason: undefined, outcome: 'socket answered 200' },
  ]);
});
