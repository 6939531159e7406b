import { describe, expect, it } from 'vitest';
import type { RunItem } from '../../src/adk/client.js';
import type { Gate } from '../../src/adk/gate.js';
import { parseEvent } from '../../src/adk/wire.js';
import { createLog } from '../../src/log.js';
import type { SlackMessage } from '../../src/slack/codecs/block-kit.js';
import { type RunContext, RunStreamer } from '../../src/workflow/run-streamer.js';
import { RunThreads } from '../../src/workflow/run-thread.js';
import { quietSlackPort } from '../support/quiet-slack-port.js';

/**
 * When a stream that ends with HTTP 200 and no error frame is a failed run: its last event
 * cannot end a run and it asked people nothing (ADK Java fails runs so). Events in Python's
 * order (the request, then the tool's placeholder answer last) are a pause, not a failure.
 */

const CONTEXT: RunContext = {
  appName: 'bank',
  userId: 'U1',
  sessionId: 's1',
  requester: 'U1',
  teamId: undefined,
  thread: { channelId: 'C1', threadTs: '1.0' },
};

const CALL = { id: 'c-1', name: 'transfer', args: { amount: 5 } };
const modelCall = { author: 'bank', content: { role: 'model', parts: [{ functionCall: CALL }] } };
const request = {
  invocationId: 'e-1',
  author: 'bank',
  longRunningToolIds: ['adk-r1'],
  content: {
    role: 'user',
    parts: [
      {
        functionCall: {
          id: 'adk-r1',
          name: 'adk_request_confirmation',
          args: { originalFunctionCall: CALL, toolConfirmation: { confirmed: false } },
        },
      },
    ],
  },
};
const placeholder = {
  author: 'bank',
  content: {
    role: 'user',
    parts: [
      {
        functionResponse: {
          id: CALL.id,
          name: 'transfer',
          response: { error: 'This tool call requires confirmation, please approve or reject.' },
        },
      },
    ],
  },
  actions: { requestedToolConfirmations: { [CALL.id]: { confirmed: false } } },
};
const ran = {
  author: 'bank',
  content: {
    role: 'user',
    parts: [{ functionResponse: { id: CALL.id, name: 'transfer', response: { ok: true } } }],
  },
};
const text = { author: 'bank', content: { role: 'model', parts: [{ text: 'Done.' }] } };

async function stream(events: unknown[]) {
  const posted: SlackMessage[] = [];
  const pauses: Gate[][] = [];
  const slack = quietSlackPort({
    async postMessage(input) {
      posted.push(input);
      return { channel: input.channel, ts: String(posted.length) };
    },
  });
  const log = createLog('error', 'test', () => {});
  const streamer = new RunStreamer({
    adk: {
      async *runSse(): AsyncGenerator<RunItem, void> {
        for (const json of events) {
          const parsed = parseEvent(json);
          if (!parsed.success) throw new Error(parsed.error.message);
          yield { type: 'event', event: parsed.data };
        }
      },
    },
    threads: new RunThreads({ slack, log }),
    pauses: {
      record: async (_context, gates) => {
        pauses.push(gates);
      },
    },
    log,
  });
  const outcome = await streamer.stream(CONTEXT, {
    appName: 'bank',
    userId: 'U1',
    sessionId: 's1',
    newMessage: { role: 'user', parts: [{ text: 'transfer 5' }] },
  });
  return { outcome, posted, pauses };
}

describe('a stream that ends without an error frame', () => {
  it("ending on the model's answer completes the run", async () => {
    const { outcome } = await stream([modelCall, ran, text]);
    expect(outcome.kind).toBe('completed');
  });

  it("ending after a tool's answer, before the model's turn, is a failed run", async () => {
    const { outcome } = await stream([modelCall, ran]);
    expect(outcome).toMatchObject({ kind: 'failed', error: { reason: 'ended_early' } });
  });

  it('ending with no event at all is a failed run', async () => {
    const { outcome } = await stream([]);
    expect(outcome).toMatchObject({
      kind: 'failed',
      error: { reason: 'ended_early' },
      delivered: false,
    });
  });

  it("ending on Python's placeholder answer after its request is a pause, not a failure", async () => {
    const { outcome, pauses } = await stream([modelCall, request, placeholder]);
    expect(outcome).toMatchObject({ kind: 'completed', pauses: 1 });
    expect(pauses).toHaveLength(1);
  });
});

describe("the tools that ran and the agent's answer after them", () => {
  it('are one message in the thread: the tool line, then the answer', async () => {
    const { posted } = await stream([modelCall, ran, text]);
    expect(posted).toHaveLength(1);
    expect(JSON.stringify(posted[0]?.blocks)).toMatch(/ran `transfer` ✓.*Done\./);
    expect(posted[0]?.text).toBe('Ran 1 tool\nDone.');
  });

  it('are two when together they would pass what one Slack message holds', async () => {
    // Each fits alone (a long answer is cut to fit one message, the tool line to 2,800 chars);
    // together they pass Slack's ~12,000 characters of text per message.
    const manyTools = {
      author: 'bank',
      content: {
        role: 'user',
        parts: Array.from({ length: 60 }, (_, i) => ({
          functionResponse: { id: `c-${i}`, name: `tool_${'n'.repeat(50)}_${i}`, response: {} },
        })),
      },
    };
    const long = {
      author: 'bank',
      content: { role: 'model', parts: [{ text: 'x'.repeat(11_500) }] },
    };
    const { posted } = await stream([modelCall, manyTools, long]);
    expect(posted.map((message) => message.text.slice(0, 12))).toEqual([
      'Ran 60 tools',
      'xxxxxxxxxxxx',
    ]);
  });

  it('a tool line with no answer after it (the stream cut off) is posted alone', async () => {
    const { posted } = await stream([modelCall, ran]);
    expect(posted.map((message) => message.text)).toEqual(['Ran 1 tool']);
  });
});
