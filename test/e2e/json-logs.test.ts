import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { CHANNELS, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';

const { alice, bob } = PEOPLE;
const OPS = CHANNELS.ops.id;

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness({
    policy: `defaults:\n  approvers: [${bob.id}]\n`,
    logFormat: 'json',
    adkProxy: true,
    // A vote marks its pause's resume due before it runs, so a sweep could take the resume over
    // from the click (under its own correlation id); this test follows the click's.
    sweepIntervalMs: 60_000,
  });
});
afterEach(() => {
  harness?.adkProxy?.setDown(false);
});
afterAll(async () => {
  await harness?.stop();
});

interface Entry {
  time: string;
  level: string;
  logger: string;
  msg: string;
  correlationId?: string;
  [field: string]: unknown;
}

/** Every line the app wrote, parsed: JSON.parse throws on the first line that is not JSON. */
function entries(): Entry[] {
  return harness.logs.map((line) => {
    const entry: Entry = JSON.parse(line);
    expect(entry).toMatchObject({
      time: expect.any(String),
      level: expect.stringMatching(/^(debug|info|warn|error)$/),
      logger: expect.any(String),
      msg: expect.any(String),
    });
    return entry;
  });
}

describe('LOG_FORMAT=json', () => {
  it('writes one JSON object per line, and a click shares its correlation id with the resume it caused', async () => {
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 250');
    const card = await harness.card(OPS, root.ts);
    await harness.sandbox.clickButton({
      user: bob.id,
      channel: OPS,
      messageTs: card.ts,
      actionId: ACTION_IDS.approve,
    });
    await harness.reply(OPS, root.ts, 'Tool transfer_money returned');

    const all = entries();
    const decided = all.find((entry) => entry.msg === 'gate decided');
    const resuming = all.find((entry) => entry.msg === 'resuming');
    const recorded = all.find((entry) => entry.msg === 'pause recorded');
    expect(decided?.correlationId).toMatch(/^[0-9a-f]{8}$/);
    expect(resuming?.correlationId).toBe(decided?.correlationId);
    // The run was another request (the /agent command): another id.
    expect(recorded?.correlationId).toMatch(/^[0-9a-f]{8}$/);
    expect(recorded?.correlationId).not.toBe(decided?.correlationId);
  });

  it('an error shown in Slack carries a reference that finds its log lines', async () => {
    harness.adkProxy?.setDown(true);
    const root = await harness.runAgent(alice.id, OPS, 'payments transfer 7');
    const failure = await harness.reply(OPS, root.ts, 'Reference');
    const reference = /Reference `([0-9a-f]{8})`/.exec(JSON.stringify(failure.blocks))?.[1];
    expect(reference).toBeDefined();
    const lines = entries().filter((entry) => entry.correlationId === reference);
    expect(lines.map((entry) => entry.msg)).toContain('could not create an ADK session');
  });
});
