import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buttons,
  CHANNELS,
  cardText,
  type Harness,
  PEOPLE,
  startHarness,
} from '../support/app-harness.js';

const { alice, bob } = PEOPLE;
const OPS = CHANNELS.ops.id;

/** Transfers expire after a second and are rejected; memos expire and are cancelled. */
const POLICY = `
defaults:
  approvers: [${bob.id}]
rules:
  - match: { tool: transfer_money }
    expiresIn: 1s
  - match: { tool: send_memo }
    expiresIn: 1s
    onExpiry: cancel
`;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ policy: POLICY, sweepIntervalMs: 100 });
});
afterAll(async () => {
  await harness?.stop();
});

describe('expiry', () => {
  it('updates the card, takes its buttons away, and tells the agent the call was rejected', async () => {
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 500');
    const card = await harness.card(OPS, root.ts);
    expect(cardText(card)).toMatch(/Expires|expires/);

    const rejected = await harness.reply(OPS, root.ts, 'This tool call is rejected');
    expect(rejected.text).toContain('Tool transfer_money returned');
    const told = await harness.reply(OPS, root.ts, 'Noted: Why these tool calls were not approved');
    expect(told.text).toContain('Nobody decided in time');

    const expired = harness.sandbox.replies(OPS, root.ts).find((m) => m.ts === card.ts);
    expect(expired && cardText(expired)).toMatch(/expired/i);
    expect(expired && buttons(expired)).toEqual([]);

    const view = await harness.pauseOf(card);
    expect(view.gates[0]?.state).toBe('expired');
    expect(view.pause.resume.state).toBe('resumed');
  });

  it('a cancel-on-expiry gate is cancelled and the agent is not answered', async () => {
    const root = await harness.runAgent(alice.id, OPS, 'payments memo: weekly numbers');
    const card = await harness.card(OPS, root.ts);
    const cancelled = await harness.sandbox.waitFor(
      () => {
        const now = harness.sandbox.replies(OPS, root.ts).find((m) => m.ts === card.ts);
        return now && cardText(now).includes('will not be answered') && now;
      },
      { timeoutMs: 15_000 },
    );
    expect(buttons(cancelled)).toEqual([]);
    const view = await harness.pauseOf(card);
    expect(view.gates[0]?.state).toBe('cancelled');
    expect(view.pause.resume.state).toBe('abandoned');
    expect(
      harness.sandbox.replies(OPS, root.ts).some((m) => m.text.includes('Tool send_memo')),
    ).toBe(false);
    // Nothing resumes a cancelled pause, yet the run's root stops saying it waits.
    const rootNow = await harness.sandbox.waitFor(() => {
      const now = harness.sandbox.message(OPS, root.ts);
      return now && cardText(now).includes('Expired') && now;
    });
    expect(cardText(rootNow)).not.toContain('Waiting for approval');
  });
});
