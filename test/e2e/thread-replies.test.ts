import type { SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNELS, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';

const { alice, bob, carol, dave } = PEOPLE;
const OPS = CHANNELS.ops.id;

const POLICY = `
defaults:
  approvers: [${bob.id}, ${carol.id}]
`;

let harness: Harness;

beforeAll(async () => {
  // Tests here follow a click's resume: keep the sweeper from taking it over.
  harness = await startHarness({ policy: POLICY, sweepIntervalMs: 60_000 });
});
afterAll(async () => {
  await harness?.stop();
});

/** `/agent payments <prompt>` as Alice; resolves once the agent's first answer is in the thread. */
async function startRun(prompt: string): Promise<SandboxMessage> {
  const root = await harness.runAgent(alice.id, OPS, `payments ${prompt}`);
  await harness.reply(OPS, root.ts, `Noted: ${prompt}`);
  return root;
}

function replyInThread(user: string, root: SandboxMessage, text: string): SandboxMessage {
  return harness.sandbox.postAsPerson({ user, channel: OPS, threadTs: root.ts, text });
}

function repliesWith(root: SandboxMessage, needle: string): SandboxMessage[] {
  return harness.sandbox
    .replies(OPS, root.ts)
    .filter((message) => message.botId !== undefined && message.text.includes(needle));
}

describe('a reply in a run thread', () => {
  it('continues the same ADK session: the agent answers in the thread', async () => {
    const root = await startRun('first question');
    replyInThread(alice.id, root, 'what next?');
    await harness.reply(OPS, root.ts, 'Noted: what next?');
  });

  it('is answered once when Slack delivers the same event twice', async () => {
    const root = await startRun('dedupe me');
    const reply = replyInThread(alice.id, root, 'only once please');
    await harness.reply(OPS, root.ts, 'Noted: only once please');
    const delivery = harness.sandbox
      .events('message')
      .find((event) => JSON.stringify(event.envelope.event).includes(reply.ts));
    if (delivery === undefined) throw new Error('the reply was not delivered as an event');
    const again = await harness.sandbox.redeliverEvent(delivery.eventId);
    expect(again.attempts.at(-1)).toMatchObject({ retryNum: 1, outcome: 'answered 200' });
    // Replies of one thread are handled in order: once the next one is answered, the
    // duplicate before it has been handled too.
    replyInThread(alice.id, root, 'and then?');
    await harness.reply(OPS, root.ts, 'Noted: and then?');
    expect(repliesWith(root, 'Noted: only once please')).toHaveLength(1);
    expect(
      harness.logs.some(
        (line) => line.includes('duplicate event ignored') && line.includes(delivery.eventId),
      ),
    ).toBe(true);
  });

  it('that asks for a risky tool gets a card in the thread, and is refused while it is pending', async () => {
    const root = await startRun('hello');
    replyInThread(alice.id, root, 'transfer 42');
    const card = await harness.card(OPS, root.ts);

    replyInThread(alice.id, root, 'are you there?');
    const refusal = await harness.sandbox.waitFor(
      () =>
        harness.sandbox
          .ephemerals(alice.id)
          .find((e) => e.threadTs === root.ts && e.text.includes('answer the card first')),
      { timeoutMs: 15_000 },
    );
    expect(refusal.text).toContain(`/archives/${OPS}/p${card.ts.replace('.', '')}`);

    await harness.approveUntilResumed(bob.id, OPS, card);
    await harness.reply(OPS, root.ts, 'Tool transfer');
    replyInThread(alice.id, root, 'thanks');
    await harness.reply(OPS, root.ts, 'Noted: thanks');
    expect(repliesWith(root, 'Noted: are you there?')).toHaveLength(0);
  });

  it('from a teammate is people talking: not passed to the agent, and not answered', async () => {
    const root = await startRun('ours');
    replyInThread(dave.id, root, 'looks good to me');
    // Replies of one thread are handled in order: once Alice's next one is answered, Dave's
    // before it has been handled too.
    replyInThread(alice.id, root, 'go on');
    await harness.reply(OPS, root.ts, 'Noted: go on');
    expect(harness.sandbox.ephemerals(dave.id).filter((e) => e.threadTs === root.ts)).toEqual([]);
    expect(repliesWith(root, 'Noted: looks good')).toHaveLength(0);
  });

  it('from a teammate who asks the app is not passed to the agent, and tells them whose run it is', async () => {
    const root = await startRun('mine');
    replyInThread(dave.id, root, '@approvals let me in');
    const refusal = await harness.sandbox.waitFor(
      () => harness.sandbox.ephemerals(dave.id).find((e) => e.threadTs === root.ts),
      { timeoutMs: 15_000 },
    );
    expect(refusal.text).toContain(`Only <@${alice.id}>`);
    expect(repliesWith(root, 'Noted: @approvals let me in')).toHaveLength(0);
  });
});

describe('a mention of the app outside a run thread', () => {
  it('gets a short how-to in a thread of its own', async () => {
    const message = harness.sandbox.postAsPerson({
      user: alice.id,
      channel: OPS,
      text: '@approvals can you help?',
    });
    const help = await harness.reply(OPS, message.ts, '/agent');
    expect(help.text).toContain('reply in that thread');
  });
});
