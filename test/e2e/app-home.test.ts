import type { SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS, encodeButtonValue } from '../../src/slack/codecs/action-ids.js';
import {
  buttons,
  CHANNELS,
  cardText,
  type Harness,
  PEOPLE,
  startHarness,
} from '../support/app-harness.js';
import { homeOnceItSays as homeOnceItSaysOf, postHomeClick } from '../support/app-home.js';

const { alice, bob, dave } = PEOPLE;
const OPS = CHANNELS.ops.id;

/** Payments go to the on-call group (Bob and Carol); Alice runs agents; Dave approves nothing. */
const POLICY = `
defaults:
  approvers: [S0ONCALL001]
`;

let harness: Harness;

beforeAll(async () => {
  // The test follows a click's resume: no sweep in the way (a vote marks the resume due first).
  harness = await startHarness({ policy: POLICY, sweepIntervalMs: 60_000 });
});
afterAll(async () => {
  await harness?.stop();
});

async function startRun(text: string): Promise<{ root: SandboxMessage; card: SandboxMessage }> {
  const root = await harness.runAgent(alice.id, OPS, text);
  const card = await harness.card(OPS, root.ts);
  return { root, card };
}

function homeOnceItSays(user: string, ready: (text: string) => boolean) {
  return homeOnceItSaysOf(harness, user, ready);
}

/** Home Approve buttons naming this card's pause. */
function homeApproves(view: unknown, pauseId: string): number {
  return buttons({ blocks: [view] }).filter(
    (button) => button.action_id === ACTION_IDS.homeApprove && button.value?.includes(pauseId),
  ).length;
}

describe('the App Home', () => {
  it("Bob's Home lists the pending card; approving there runs the tool once, the card says approved and the Home lets it go", async () => {
    // Bob and Alice look at their Homes: from then on their Homes follow the pauses that concern
    // them. Carol, of the same group, has not opened hers: it is drawn when she does (below).
    for (const user of [bob.id, alice.id]) harness.sandbox.openAppHome(user);
    await homeOnceItSays(bob.id, (text) => text.includes('Waiting for you'));
    await homeOnceItSays(alice.id, (text) => text.includes('Waiting for you'));
    const { root, card } = await startRun('payments transfer 310');
    const { pause } = await harness.pauseOf(card);

    const home = await homeOnceItSays(bob.id, (text) => text.includes(pause.id));
    expect(harness.sandbox.home(PEOPLE.carol.id)).toBeUndefined();
    expect(home.view.type).toBe('home');
    expect(JSON.stringify(home.view)).toContain('Waiting for you');
    expect(JSON.stringify(home.view)).toContain('transfer_money');
    expect(homeApproves(home.view, pause.id)).toBe(1);

    // Alice asked: her Home shows it under "Your requests", with nothing she could approve.
    const alicesHome = await homeOnceItSays(alice.id, (text) => text.includes('transfer_money'));
    expect(homeApproves(alicesHome.view, pause.id)).toBe(0);

    const clicked = await harness.sandbox.clickButton({
      user: bob.id,
      viewId: home.id,
      actionId: ACTION_IDS.homeApprove,
      value: encodeButtonValue({ pauseId: pause.id, callId: pause.callIds[0] ?? '' }),
    });
    expect(clicked).toMatchObject({ answered: true, status: 200 });

    await harness.reply(OPS, root.ts, 'Tool transfer_money returned');
    const decided = await harness.sandbox.waitFor(
      () => {
        const now = harness.sandbox.message(OPS, card.ts);
        return now !== undefined && cardText(now).includes('Agent resumed') && now;
      },
      { timeoutMs: 15_000 },
    );
    expect(cardText(decided)).toContain(`<@${bob.id}>`);
    expect(buttons(decided)).toEqual([]);
    expect(await harness.toolRuns(card, 'transfer_money', 'transferred')).toBe(1);

    const after = await homeOnceItSays(bob.id, (text) => !text.includes(ACTION_IDS.homeApprove));
    expect(homeApproves(after.view, pause.id)).toBe(0);
    expect(JSON.stringify(after.view)).toContain('approved');
  });

  it('app_home_opened publishes the Home: Carol, of the on-call group, finds the card there; Dave finds nothing to approve', async () => {
    const { card } = await startRun('payments transfer 45');
    const { pause } = await harness.pauseOf(card);
    const { carol } = PEOPLE;

    // Opening the Home tab in the sandbox delivers a signed `app_home_opened` to the app.
    for (const user of [carol.id, dave.id]) harness.sandbox.openAppHome(user);
    const opened = harness.sandbox.events('app_home_opened');
    expect(opened.slice(-2).map((d) => (d.envelope.event as { user?: string }).user)).toEqual([
      carol.id,
      dave.id,
    ]);
    const carolsHome = await homeOnceItSays(carol.id, (text) => text.includes(pause.id));
    expect(homeApproves(carolsHome.view, pause.id)).toBe(1);
    const davesHome = await homeOnceItSays(dave.id, (text) => text.includes('Waiting for you'));
    expect(JSON.stringify(davesHome.view)).toContain('Nothing waits for your decision.');
    expect(homeApproves(davesHome.view, pause.id)).toBe(0);
  });

  it("a forged Approve from Dave's Home is refused, says why on his Home, and changes nothing", async () => {
    const { card } = await startRun('payments transfer 20');
    const { pause } = await harness.pauseOf(card);
    const callId = pause.callIds[0] ?? '';

    const response = await postHomeClick(harness, dave.id, {
      action_id: ACTION_IDS.homeApprove,
      value: encodeButtonValue({ pauseId: pause.id, callId }),
    });
    expect(response.status).toBe(200);

    // The refusal is said on his Home (a Home click has no response_url to answer through).
    const davesHome = await homeOnceItSays(dave.id, (text) => text.includes(':warning:'));
    const text = JSON.stringify(davesHome.view);
    expect(text).toContain('Waiting for you');
    expect(text).not.toContain(pause.id);
    expect(homeApproves(davesHome.view, pause.id)).toBe(0);

    const records = await harness.store.pauses.getPause(pause.id);
    expect(records?.gates[0]?.state).toBe('pending');
    expect(records?.gates[0]?.votes).toEqual([]);
    expect(await harness.toolRuns(card, 'transfer_money', 'transferred')).toBe(0);
  });
});
