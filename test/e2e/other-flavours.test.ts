import type { SandboxMessage } from '@adk-slack-approvals/slack-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json.js';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { CHANNELS, cardText, type Harness, PEOPLE, startHarness } from '../support/app-harness.js';
import {
  type FakeAdkServer,
  type RunScript,
  startFakeAdkServer,
} from '../support/fake-adk-server.js';

/**
 * ADK flavours the real JS api_server cannot play, through the whole app (real Redis, the Slack
 * sandbox) against a fake ADK server at the HTTP boundary that streams hand-built events in each
 * flavour's shape: adk-rs, whose request is a function response carrying the original call id,
 * asking again with that same id in a later stream; ADK Java, whose api_server ends a failed
 * run's stream with no error frame (its `SseEmitter.completeWithError` on a committed response).
 */

const { alice, bob } = PEOPLE;
const OPS = CHANNELS.ops.id;
const POLICY = `
defaults:
  approvers: [${bob.id}]
rules: []
`;

const RS_CALL = { id: 'call_1', name: 'transfer', args: { amount: 5 } };

/** adk-rs: a `functionResponse` named adk_request_confirmation, with the original call's id. */
function rsRequest(invocationId: string, hint: string): JsonObject {
  return {
    id: `rs-${invocationId}`,
    invocationId,
    author: 'rs_bank',
    content: {
      role: 'model',
      parts: [
        {
          functionResponse: {
            id: RS_CALL.id,
            name: 'adk_request_confirmation',
            willContinue: true,
            response: {
              originalFunctionCall: RS_CALL,
              toolConfirmation: { hint, confirmed: false },
            },
          },
        },
      ],
    },
  };
}

function modelEvent(author: string, invocationId: string, parts: JsonValue[]): JsonObject {
  return {
    id: `${author}-${invocationId}`,
    invocationId,
    author,
    content: { role: 'model', parts },
  };
}

/** Asks for a confirmation of call_1, then, answered, asks again with the same id; then runs. */
const rsBank: RunScript = ({ index }) => {
  if (index === 0) {
    return [
      modelEvent('rs_bank', 'inv-1', [{ functionCall: RS_CALL }]),
      rsRequest('inv-1', 'Send 5 to savings?'),
    ];
  }
  if (index === 1) return [rsRequest('inv-2', 'Second sign-off: send 5 to savings?')];
  const ran = {
    functionResponse: { id: RS_CALL.id, name: 'transfer', response: { status: 'sent' } },
  };
  return [
    { ...modelEvent('rs_bank', 'inv-3', [ran]), content: { role: 'user', parts: [ran] } },
    modelEvent('rs_bank', 'inv-3', [{ text: 'Sent 5 to savings.' }]),
  ];
};

const JAVA_CALL = { id: 'java-call-1', name: 'transfer', args: { amount: 7 } };

/** ADK Java's Jackson output: every absent field as null. */
function javaEvent(fields: JsonObject): JsonObject {
  return {
    id: `j-${String(fields.invocationId)}-${Math.random().toString(36).slice(2, 8)}`,
    branch: null,
    partial: null,
    turnComplete: null,
    errorCode: null,
    errorMessage: null,
    longRunningToolIds: null,
    timestamp: 1_795_326_460_350,
    author: 'java_bank',
    actions: {
      stateDelta: {},
      artifactDelta: {},
      requestedToolConfirmations: {},
      requestedAuthConfigs: {},
      skipSummarization: null,
      transferToAgent: null,
      escalate: null,
    },
    ...fields,
  };
}

function promptOf(message: JsonValue): string {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return '';
  const parts = message.parts;
  if (!Array.isArray(parts)) return '';
  return parts
    .map((part) =>
      typeof part === 'object' && part !== null && !Array.isArray(part) ? part.text : undefined,
    )
    .filter((text) => typeof text === 'string')
    .join(' ');
}

/**
 * `lookup`: the model calls a tool and the run fails before it answers; the stream just ends.
 * `transfer`: a confirmation as ADK Java raises it (the model's call, the request, the tool's
 * placeholder answer); resumed, the tool runs and the model's turn fails: the stream just ends.
 */
const javaBank: RunScript = ({ index, newMessage }) => {
  if (index === 0 && promptOf(newMessage).includes('lookup')) {
    return [
      javaEvent({
        invocationId: 'e-j-lookup',
        content: {
          role: 'model',
          parts: [{ functionCall: { id: 'java-lookup', name: 'lookup_balance', args: {} } }],
        },
      }),
    ];
  }
  if (index === 0) {
    return [
      javaEvent({
        invocationId: 'e-j-1',
        content: { role: 'model', parts: [{ functionCall: JAVA_CALL }] },
      }),
      javaEvent({
        invocationId: 'e-j-1',
        longRunningToolIds: ['adk-java-req'],
        content: {
          role: 'user',
          parts: [
            {
              functionCall: {
                id: 'adk-java-req',
                name: 'adk_request_confirmation',
                args: {
                  originalFunctionCall: JAVA_CALL,
                  toolConfirmation: { hint: 'Send 7?', confirmed: false, payload: null },
                },
              },
            },
          ],
        },
      }),
      javaEvent({
        invocationId: 'e-j-1',
        content: {
          role: 'user',
          parts: [
            {
              functionResponse: {
                id: JAVA_CALL.id,
                name: 'transfer',
                response: {
                  error: 'This tool call requires confirmation, please approve or reject.',
                },
              },
            },
          ],
        },
        actions: {
          stateDelta: {},
          artifactDelta: {},
          requestedToolConfirmations: { [JAVA_CALL.id]: { hint: 'Send 7?', confirmed: false } },
          requestedAuthConfigs: {},
          skipSummarization: null,
          transferToAgent: null,
          escalate: null,
        },
      }),
    ];
  }
  return [
    javaEvent({
      invocationId: 'e-j-2',
      content: {
        role: 'user',
        parts: [
          {
            functionResponse: { id: JAVA_CALL.id, name: 'transfer', response: { status: 'sent' } },
          },
        ],
      },
    }),
  ];
};

let fake: FakeAdkServer;
let harness: Harness;

beforeAll(async () => {
  fake = await startFakeAdkServer({ rs_bank: rsBank, java_bank: javaBank });
  // These tests follow a click's resume: no sweep may take it over.
  harness = await startHarness({
    policy: POLICY,
    adkBaseUrl: fake.baseUrl,
    sweepIntervalMs: 60_000,
  });
});
afterAll(async () => {
  await harness?.stop();
  await fake?.stop();
});

const thread = (root: SandboxMessage) => harness.thread(OPS, root);
const cardsIn = (root: SandboxMessage) => harness.openCards(OPS, root);

const approve = (card: SandboxMessage) =>
  harness.sandbox.clickButton({
    user: bob.id,
    channel: OPS,
    messageTs: card.ts,
    actionId: ACTION_IDS.approve,
  });

describe('adk-rs: a call id asked about again in a later stream', () => {
  it('a later stream that asks again with the same call id gets a second card, and answering it resumes the agent', async () => {
    const root = await harness.runAgent(alice.id, OPS, 'rs_bank transfer 5');
    const first = await harness.card(OPS, root.ts);
    expect(cardText(first)).toContain('Send 5 to savings?');
    await approve(first);

    const second = await harness.sandbox.waitFor(
      () => cardsIn(root).find((message) => message.ts !== first.ts),
      { timeoutMs: 15_000 },
    );
    expect(cardText(second)).toContain('Second sign-off: send 5 to savings?');
    const [firstPause, secondPause] = [await harness.pauseOf(first), await harness.pauseOf(second)];
    expect(secondPause.pause.id).not.toBe(firstPause.pause.id);
    expect(secondPause.gates[0]).toMatchObject({ confirmationCallId: 'call_1', state: 'pending' });

    await approve(second);
    await harness.reply(OPS, root.ts, 'Sent 5 to savings.');
    const answers = fake.runs
      .filter((run) => run.appName === 'rs_bank')
      .slice(1)
      .map((run) => run.newMessage);
    const answer = {
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: 'call_1',
            name: 'adk_request_confirmation',
            response: { confirmed: true },
          },
        },
      ],
    };
    expect(answers).toEqual([answer, answer]);
  });
});

describe('ADK Java: a failed run ends its stream without an error frame', () => {
  it('a run cut off after the model called a tool is reported as a failure, not as a silent success', async () => {
    const root = await harness.runAgent(alice.id, OPS, 'java_bank lookup my balance');
    const warning = await harness.reply(OPS, root.ts, 'stopped before its final answer');
    expect(warning.text).toContain('stopped before its final answer');
    expect(thread(root).filter((message) => message.text.startsWith('Ran '))).toEqual([]);
  });

  it('a Java confirmation gets a card and no false "ran" line; a resume cut off after the tool ran is reported in the thread', async () => {
    const root = await harness.runAgent(alice.id, OPS, 'java_bank transfer 7');
    const card = await harness.card(OPS, root.ts);
    expect(cardText(card)).toContain('Send 7?');
    // The tool's placeholder answer ("requires confirmation") is not a run, failed or not.
    expect(thread(root).filter((message) => message.text.startsWith('Ran '))).toEqual([]);

    await approve(card);
    const warning = await harness.reply(OPS, root.ts, 'stopped before its final answer');
    expect(warning.text).toContain('stopped before its final answer');
    // The tool did run before the model's turn failed: that line is true.
    expect(thread(root).filter((message) => message.text.startsWith('Ran 1 tool'))).toHaveLength(1);
  });
});
