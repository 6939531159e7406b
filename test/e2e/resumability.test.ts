import type { SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { CHANNELS, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';

/**
 * Resumability is detected per ADK app: a resume sends `invocationId`, and when the server refuses
 * it the way Python (non-resumable app) or Go (unknown field) does, before storing anything, the
 * resume is sent again without it, once, and the app remembers. The refusals are played by a proxy
 * in front of the real ADK api_server, which runs everything else.
 */

const { alice, bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const POLICY = `
defaults:
  approvers: [${bob.id}]
rules: []
`;

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

async function approveTransfer(h: Harness, amount: number): Promise<SandboxMessage> {
  const root = await h.runAgent(alice.id, OPS, `payments transfer ${amount}`);
  const card = await h.card(OPS, root.ts);
  await h.sandbox.clickButton({
    user: bob.id,
    channel: OPS,
    messageTs: card.ts,
    actionId: ACTION_IDS.approve,
  });
  await h.reply(OPS, root.ts, 'Tool transfer_money returned');
  return card;
}

async function transfers(h: Harness, card: SandboxMessage, amount: number): Promise<number> {
  const { pause } = await h.pauseOf(card);
  const session = await h.adk.getSession(pause.adk.appName, pause.adk.userId, pause.adk.sessionId);
  return session.events.filter((event) =>
    (event.content?.parts ?? []).some(
      (part) =>
        part.functionResponse?.name === 'transfer_money' &&
        JSON.stringify(part.functionResponse.response) ===
          JSON.stringify({ status: 'transferred', amount }),
    ),
  ).length;
}

describe('resumability, detected per app', () => {
  it.each([
    { server: 'python', setting: undefined },
    { server: 'go', setting: 'true' },
  ] as const)(
    '$server refuses invocationId (ADK_RESUMABLE=$setting): the second attempt resumes, the tool runs once, and the app remembers',
    async ({ server, setting }) => {
      const h = await startHarness({
        policy: POLICY,
        adkProxy: true,
        ...(setting === undefined ? {} : { resumable: setting }),
      });
      harness = h;
      const proxy = h.adkProxy;
      if (proxy === undefined) throw new Error('the harness has no ADK proxy');
      proxy.refuseInvocationId(server);

      const card = await approveTransfer(h, 41);
      expect(await transfers(h, card, 41)).toBe(1);
      // The run, the refused resume, the resume without invocationId.
      expect(proxy.runs).toEqual([
        { invocationId: false, refused: false },
        { invocationId: true, refused: true },
        { invocationId: false, refused: false },
      ]);
      expect((await h.pauseOf(card)).pause.resume).toMatchObject({ state: 'resumed' });

      const second = await approveTransfer(h, 42);
      expect(await transfers(h, second, 42)).toBe(1);
      expect(proxy.runs.slice(3)).toEqual([
        { invocationId: false, refused: false },
        { invocationId: false, refused: false },
      ]);
    },
  );

  it('ADK_RESUMABLE=false never sends invocationId', async () => {
    const h = await startHarness({ policy: POLICY, adkProxy: true, resumable: 'false' });
    harness = h;
    const card = await approveTransfer(h, 43);
    expect(await transfers(h, card, 43)).toBe(1);
    expect(h.adkProxy?.runs.map((run) => run.invocationId)).toEqual([false, false]);
  });
});
