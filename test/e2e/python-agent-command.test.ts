import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdkClient } from '../../src/adk/client.js';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { CHANNELS, cardText, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';
import {
  PYTHON_ADK,
  PYTHON_ADK_SKIPPED,
  type PythonAdkServer,
  startPythonAdkServer,
  toolRuns,
} from '../support/python-adk.js';

/**
 * `/agent` against a real Python `adk api_server` (google-adk from the environment
 * scripts/python-adk-env.sh builds): the Python wire format end to end, for an app that is
 * resumable and one that is not. Skipped, and said so, where that environment is absent.
 */
const { alice, bob } = PEOPLE;
const OPS = CHANNELS.ops.id;

let server: PythonAdkServer;
let harness: Harness;

beforeAll(async () => {
  if (PYTHON_ADK === undefined) return;
  server = await startPythonAdkServer();
  harness = await startHarness({
    policy: `
defaults:
  approvers: [${bob.id}]
rules: []
`,
    adkBaseUrl: server.url,
  });
}, 90_000);

afterAll(async () => {
  await harness?.stop();
  await server?.stop();
});

describe.skipIf(PYTHON_ADK === undefined)('/agent against a Python adk api_server', () => {
  it.each([
    ['py_payments', 'not resumable'],
    ['py_payments_resumable', 'resumable'],
  ])(
    '%s (%s): card, approve, resume; the tool runs once and the answer reaches the thread',
    {
      timeout: 60_000,
    },
    async (app) => {
      const root = await harness.runAgent(alice.id, OPS, `${app} transfer 300`);
      const card = await harness.card(OPS, root.ts);
      expect(cardText(card)).toContain('transfer_money');
      await harness.sandbox.clickButton({
        user: bob.id,
        channel: OPS,
        messageTs: card.ts,
        actionId: ACTION_IDS.approve,
      });
      const answer = await harness.reply(OPS, root.ts, 'Tool transfer_money returned');
      expect(answer.text).toContain('"amount":300');
      // The answer streams into the thread before the resume is marked done; the card says when.
      await harness.sandbox.waitFor(
        () => {
          const now = harness.sandbox.message(OPS, card.ts);
          return now !== undefined && cardText(now).includes('Agent resumed') && now;
        },
        { timeoutMs: 15_000 },
      );
      const view = await harness.pauseOf(card);
      expect(view.pause.resume.state).toBe('resumed');
      const { userId, sessionId } = view.pause.adk;
      const session = await new AdkClient({ baseUrl: server.url }).getSession(
        app,
        userId,
        sessionId,
      );
      expect(toolRuns(session.state)).toBe(1);
    },
  );
});

if (PYTHON_ADK === undefined) {
  describe('/agent against a Python adk api_server', () => {
    it.skip(PYTHON_ADK_SKIPPED, () => {});
  });
}
