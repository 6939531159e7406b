import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
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
const POLICY = `
defaults:
  approvers: [${bob.id}]
rules: []
`;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ policy: POLICY });
});
afterAll(async () => {
  await harness?.stop();
});

async function readyz(): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`http://127.0.0.1:${harness.app.port}/readyz`);
  return { status: response.status, body: await response.json() };
}

describe('when Redis loses its data', () => {
  it('/readyz stays 200 once the store takes writes again, and names the loss and when it was found', {
    timeout: 45_000,
  }, async () => {
    expect((await readyz()).status).toBe(200);
    await harness.loseStoreData();

    const ready = await readyz();
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({
      status: 'ready',
      checks: { store: 'ok' },
      warnings: {
        store: expect.stringMatching(
          /^the store lost its data \(its marker key was gone, found \d{4}-\d\d-\d\dT[\d:.]+Z\): approvals pending then are lost/,
        ),
      },
    });
    // The marker is back, with the loss in it for every replica to read.
    expect(await harness.store.lifecycle.readMarker()).toMatchObject({
      kind: 'present',
      lossFoundAt: expect.any(Number),
    });
    expect(harness.logs.join('\n')).toContain('the store has lost its data');
    // And the store works: a new run gets its card.
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 71');
    expect(cardText(await harness.card(OPS, root.ts))).toContain('71');
    expect((await readyz()).status).toBe(200);
  });

  it('a click on a card whose pause is gone turns the card into a notice saying so', {
    timeout: 45_000,
  }, async () => {
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 70');
    const card = await harness.card(OPS, root.ts);

    await harness.loseStoreData();

    await harness.sandbox.clickButton({
      user: bob.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.approve,
    });
    const notice = await harness.sandbox.waitFor(() =>
      harness.sandbox.ephemerals(bob.id).find((m) => m.text.includes('no longer on record')),
    );
    expect(notice.text).toContain('Nothing was decided');
    const marked = await harness.sandbox.waitFor(() => {
      const now = harness.sandbox.message(OPS, card.ts);
      return now && cardText(now).includes('no longer on record') && now;
    });
    expect(buttons(marked)).toEqual([]);
  });
});
