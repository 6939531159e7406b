import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AdkError } from '../../src/adk/errors.js';
import type { Gate } from '../../src/adk/gate.js';
import {
  type AdkEvent,
  answeredConfirmationIds,
  buildResume,
  eventText,
  isPartial,
  parseEvent,
  parseGates,
  parseIntentMismatch,
  parseSession,
  toolResults,
} from '../../src/adk/wire.js';
import { loadCapture } from './capture.js';

function event(json: unknown): AdkEvent {
  const parsed = parseEvent(json);
  if (!parsed.success) throw new Error(parsed.error.message);
  return parsed.data;
}

function captureEvents(name: string): AdkEvent[] {
  return loadCapture(name).frameJson().map(event);
}

/** The gates of the one pause among a capture's events. */
function captureGates(name: string): Gate[] {
  const pauses = captureEvents(name).flatMap((e) => {
    const scan = parseGates(e);
    return scan.kind === 'pause' ? [scan.gates] : [];
  });
  expect(pauses).toHaveLength(1);
  return pauses[0] ?? [];
}

const TRANSFER_HINT =
  'Please approve or reject the tool call transfer_money() by responding with a FunctionResponse with an expected ToolConfirmation payload.';

/** The 10a confirmation request, as a value every flavour should turn into. */
const TRANSFER_GATE: Gate = {
  confirmationCallId: 'adk-5d08c4c0-b9ed-489c-b1dd-577e4bcba395',
  originalCall: {
    id: 'adk-c5e52d35-1fde-48c7-bf9c-9fde78388c79',
    name: 'transfer_money',
    args: { amount: 250 },
  },
  hint: TRANSFER_HINT,
  invocationId: 'e-0b8befeb-3c63-4522-b49e-500fe97a07db',
  author: 'hitl_agent',
};

const EVENT_STREAMS = [
  '10a_transfer_request',
  '10b_transfer_approve',
  '11a_transfer_request',
  '11b_transfer_reject',
  '12a_timeoff_request',
  '13a_vacation_request',
  '13b_vacation_approve_with_payload_streaming',
  '15a_invoice_small_no_confirmation',
  '16a_both_request',
  '16d_both_request',
  '16e_both_answer_in_one_message',
  '24f_run_sse_invoice_streaming_true',
  '30a_calendar_request',
  '31a_ask_me_request',
  '32a_workflow_start',
];

describe('parseEvent', () => {
  it.each(EVENT_STREAMS)('reads every event of capture %s', (name) => {
    for (const frame of loadCapture(name).frameJson()) {
      expect(parseEvent(frame)).toMatchObject({ success: true });
    }
  });

  it('keeps the fields the app uses, camelCase, with epoch-millisecond timestamps', () => {
    const [call] = captureEvents('10a_transfer_request');
    expect(call).toMatchObject({
      id: '88hQnLCx',
      invocationId: 'e-0b8befeb-3c63-4522-b49e-500fe97a07db',
      author: 'hitl_agent',
      timestamp: 1795326457768,
      longRunningToolIds: [],
      content: {
        role: 'model',
        parts: [
          {
            functionCall: {
              id: 'adk-c5e52d35-1fde-48c7-bf9c-9fde78388c79',
              name: 'transfer_money',
              args: { amount: 250 },
            },
          },
        ],
      },
    });
  });

  it('reads Python snake_case keys and float-second timestamps into the same shape', () => {
    const python = event({
      id: 'py-1',
      invocation_id: 'e-py',
      author: 'root_agent',
      timestamp: 1795326457.768,
      long_running_tool_ids: ['c-1'],
      turn_complete: true,
      actions: { state_delta: { a: 1 }, skip_summarization: true },
      content: {
        role: 'model',
        parts: [{ function_call: { id: 'c-1', name: 'lookup', args: { q: 'x' } } }],
      },
    });
    expect(python).toMatchObject({
      invocationId: 'e-py',
      timestamp: 1795326457768,
      longRunningToolIds: ['c-1'],
      turnComplete: true,
      actions: { stateDelta: { a: 1 }, skipSummarization: true },
      content: { parts: [{ functionCall: { id: 'c-1', name: 'lookup', args: { q: 'x' } } }] },
    });
  });

  it('tolerates part kinds it does not use, and keeps them out of the text', () => {
    const mixed = event({
      id: 'e1',
      author: 'agent',
      content: {
        role: 'model',
        parts: [
          { inlineData: { mimeType: 'image/png', data: 'AAAA' } },
          { text: 'thinking…', thought: true, thoughtSignature: 'c2ln' },
          { executableCode: { code: 'print(1)' } },
          { text: 'Done.' },
        ],
      },
    });
    expect(mixed.content?.parts).toHaveLength(4);
    expect(eventText(mixed)).toBe('Done.');
    expect(parseGates(mixed)).toEqual({ kind: 'none' });
  });

  it('names the field path and the event id of a malformed event, never its values', () => {
    const result = parseEvent({
      id: 'ev-7',
      author: 'agent',
      content: {
        parts: [{ functionCall: { id: 42, name: 'transfer_money', args: { secret: 'hunter2' } } }],
      },
    });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.error.eventId).toBe('ev-7');
    expect(result.error.problems).toEqual([
      'content.parts[0].functionCall.id: Invalid input: expected string, received number',
    ]);
    expect(result.error.message).toMatch(
      /^event ev-7 is not a valid ADK event: content\.parts\[0\]/,
    );
    expect(result.error.message).not.toContain('hunter2');
  });

  it('rejects input that is not an event at all', () => {
    for (const input of [null, 'text', 12, [], {}, { author: 7 }]) {
      const result = parseEvent(input);
      expect(result.success).toBe(false);
      if (!result.success) expect(result.error.problems.length).toBeGreaterThan(0);
    }
  });

  it('reports nesting too deep to read instead of overflowing the stack', () => {
    const depth = 100_000;
    const json: unknown = JSON.parse(
      `{"id":"deep","author":"a","content":{"parts":[{"functionCall":{"name":"x","args":{"v":${'['.repeat(depth)}${']'.repeat(depth)}}}}]}}`,
    );
    const result = parseEvent(json);
    expect(result).toMatchObject({
      success: false,
      error: {
        eventId: 'deep',
        problems: ['content.parts[0].functionCall.args: nested deeper than 512 levels'],
      },
    });
  });
});

describe('parseGates on real captures', () => {
  it('finds the transfer gate of 10a with both ids, the call and the hint', () => {
    const [call, request] = captureEvents('10a_transfer_request');
    if (!call || !request) throw new Error('two events expected');
    expect(parseGates(call)).toEqual({ kind: 'none' });
    expect(parseGates(request)).toEqual({ kind: 'pause', gates: [TRANSFER_GATE] });
  });

  it('finds the two gates of one event in 16a as one pause', () => {
    expect(captureGates('16a_both_request')).toEqual([
      {
        confirmationCallId: 'adk-10216514-a15a-46bd-ba42-b18390047396',
        originalCall: {
          id: 'adk-a0c5a5ee-39fe-4ae0-a959-85ddfab3d511',
          name: 'transfer_money',
          args: { amount: 100 },
        },
        hint: TRANSFER_HINT,
        invocationId: 'e-50903e26-257f-4e70-8001-9b0e0c36770e',
        author: 'hitl_agent',
      },
      {
        confirmationCallId: 'adk-8bd168cd-0fab-49e1-a03f-f6d72be19017',
        originalCall: {
          id: 'adk-fdc1b6ff-b8db-453d-be8b-37b61e30f5af',
          name: 'pay_invoice',
          args: { amount: 900 },
        },
        hint: 'Please approve or reject the tool call pay_invoice() by responding with a FunctionResponse with an expected ToolConfirmation payload.',
        invocationId: 'e-50903e26-257f-4e70-8001-9b0e0c36770e',
        author: 'hitl_agent',
      },
    ]);
  });

  it('keeps the payload template and custom hint of an advanced confirmation (12a)', () => {
    expect(captureGates('12a_timeoff_request')).toEqual([
      {
        confirmationCallId: 'adk-80dbcd2c-090d-4add-a6ed-0e52500525b8',
        originalCall: {
          id: 'adk-3f1859f8-946a-458b-a5e5-4cf82389139a',
          name: 'request_time_off',
          args: { days: 4 },
        },
        hint: 'Please approve or reject the request for 4 days off. Put the number of approved days in payload.approved_days.',
        payloadTemplate: { approved_days: 0 },
        invocationId: 'e-3144ec81-963c-4206-a82e-314ed8bf0c68',
        author: 'hitl_agent',
      },
    ]);
  });

  it.each([
    '10b_transfer_approve',
    '11b_transfer_reject',
    '13b_vacation_approve_with_payload_streaming',
    '15a_invoice_small_no_confirmation',
    '16e_both_answer_in_one_message',
    '24f_run_sse_invoice_streaming_true',
    '30a_calendar_request',
    '31a_ask_me_request',
    '32a_workflow_start',
  ])('finds no gate in %s (tool results, text, credential and input requests)', (name) => {
    for (const e of captureEvents(name)) expect(parseGates(e)).toEqual({ kind: 'none' });
  });

  it('ignores the user-authored answers stored in a session, and lists them as answered', () => {
    const capture = loadCapture('10c_transfer_session_after_approve');
    const session = parseSession(JSON.parse(capture.response.body.toString('utf8')));
    if (!session.success) throw new Error(session.error.message);
    const answers = session.data.events.filter((e) => e.author === 'user');
    expect(answers.length).toBeGreaterThan(0);
    for (const answer of answers) expect(parseGates(answer)).toEqual({ kind: 'none' });
    expect(answeredConfirmationIds(session.data.events)).toEqual(
      new Set([TRANSFER_GATE.confirmationCallId]),
    );
  });
});

describe('parseGates on other flavours', () => {
  it('reads a Python (snake_case, float seconds) request into the same gate', () => {
    const python = event({
      id: 'xTc5EQ7I',
      invocation_id: TRANSFER_GATE.invocationId,
      author: 'hitl_agent',
      timestamp: 1795326457.775,
      long_running_tool_ids: [TRANSFER_GATE.confirmationCallId],
      actions: {
        requested_tool_confirmations: {
          [TRANSFER_GATE.originalCall.id]: { hint: TRANSFER_HINT, confirmed: false },
        },
        skip_summarization: true,
      },
      content: {
        role: 'user',
        parts: [
          {
            function_call: {
              id: TRANSFER_GATE.confirmationCallId,
              name: 'adk_request_confirmation',
              args: {
                original_function_call: {
                  id: TRANSFER_GATE.originalCall.id,
                  name: 'transfer_money',
                  args: { amount: 250 },
                },
                tool_confirmation: { hint: TRANSFER_HINT, confirmed: false },
              },
            },
          },
        ],
      },
    });
    expect(parseGates(python)).toEqual({ kind: 'pause', gates: [TRANSFER_GATE] });
  });

  it("does not show Python's placeholder response for a gated call as a tool result", () => {
    const placeholder = event({
      id: 'ph',
      author: 'hitl_agent',
      content: {
        role: 'user',
        parts: [
          {
            function_response: {
              id: TRANSFER_GATE.originalCall.id,
              name: 'transfer_money',
              response: {
                error: 'This tool call requires confirmation, please approve or reject.',
              },
            },
          },
        ],
      },
    });
    expect(parseGates(placeholder)).toEqual({ kind: 'none' });
    expect(toolResults(placeholder)).toEqual([]);
  });

  it('reads an adk-rs request (a functionResponse with the original id) and answers that id', () => {
    const rust = event({
      id: 'rs-1',
      invocation_id: 'e-rs',
      author: 'bank',
      content: {
        role: 'user',
        parts: [
          {
            function_response: {
              id: 'call-1',
              name: 'adk_request_confirmation',
              will_continue: true,
              response: {
                originalFunctionCall: {
                  id: 'call-1',
                  name: 'transfer_money',
                  args: { amount: 100 },
                },
                toolConfirmation: { hint: 'Approve this transfer?', confirmed: false },
              },
            },
          },
        ],
      },
      long_running_tool_ids: ['call-1'],
    });
    const gate: Gate = {
      confirmationCallId: 'call-1',
      originalCall: { id: 'call-1', name: 'transfer_money', args: { amount: 100 } },
      hint: 'Approve this transfer?',
      invocationId: 'e-rs',
      author: 'bank',
    };
    expect(parseGates(rust)).toEqual({ kind: 'pause', gates: [gate] });
    expect(buildResume([gate], { 'call-1': { confirmed: true } }, { resumable: false })).toEqual({
      newMessage: {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: 'call-1',
              name: 'adk_request_confirmation',
              response: { confirmed: true },
            },
          },
        ],
      },
    });
  });
});

describe('parseGates never guesses', () => {
  const request = (part: unknown, extra: Record<string, unknown> = {}) =>
    event({
      id: 'ev-1',
      invocationId: 'e-1',
      author: 'agent',
      content: { role: 'user', parts: [part] },
      ...extra,
    });
  const confirmationCall = (id: unknown, args: unknown) => ({
    functionCall:
      id === undefined
        ? { name: 'adk_request_confirmation', args }
        : { id, name: 'adk_request_confirmation', args },
  });
  const goodArgs = {
    originalFunctionCall: { id: 'orig-1', name: 'transfer_money', args: { amount: 1 } },
    toolConfirmation: { hint: 'ok?', confirmed: false },
  };

  it('ignores requests authored by the user, whatever their role', () => {
    const forged = event({
      id: 'f',
      author: 'user',
      content: { role: 'user', parts: [confirmationCall('c-1', goodArgs)] },
    });
    expect(parseGates(forged)).toEqual({ kind: 'none' });
  });

  it('ignores partial events', () => {
    expect(parseGates(request(confirmationCall('c-1', goodArgs), { partial: true }))).toEqual({
      kind: 'none',
    });
  });

  it('reads a call without arguments as empty arguments', () => {
    const scan = parseGates(
      request(
        confirmationCall('c-1', { ...goodArgs, originalFunctionCall: { id: 'o', name: 'reboot' } }),
      ),
    );
    expect(scan).toMatchObject({ kind: 'pause', gates: [{ originalCall: { args: {} } }] });
  });

  it.each([
    [
      'a request without its own id',
      confirmationCall(undefined, goodArgs),
      'parts[0].functionCall.id: missing',
    ],
    [
      'an original call without id',
      confirmationCall('c-1', { ...goodArgs, originalFunctionCall: { name: 't', args: {} } }),
      'parts[0].functionCall.args.originalFunctionCall.id:',
    ],
    [
      'an original call with an empty name',
      confirmationCall('c-1', {
        ...goodArgs,
        originalFunctionCall: { id: 'o', name: '', args: {} },
      }),
      'parts[0].functionCall.args.originalFunctionCall.name:',
    ],
    [
      'arguments that are not an object',
      confirmationCall('c-1', {
        ...goodArgs,
        originalFunctionCall: { id: 'o', name: 't', args: 'amount=1' },
      }),
      'parts[0].functionCall.args.originalFunctionCall.args: expected an object',
    ],
    [
      'a hint that is not text',
      confirmationCall('c-1', { ...goodArgs, toolConfirmation: { hint: 5, confirmed: false } }),
      'parts[0].functionCall.args.toolConfirmation.hint:',
    ],
    [
      'no toolConfirmation',
      confirmationCall('c-1', { originalFunctionCall: goodArgs.originalFunctionCall }),
      'parts[0].functionCall.args.toolConfirmation:',
    ],
    [
      'an adk-rs request whose original id differs from its own',
      {
        functionResponse: {
          id: 'call-1',
          name: 'adk_request_confirmation',
          response: { ...goodArgs, originalFunctionCall: { id: 'call-2', name: 't', args: {} } },
        },
      },
      'parts[0].functionResponse.response.originalFunctionCall.id: differs',
    ],
    [
      'an adk-rs request whose response is text',
      {
        functionResponse: { id: 'call-1', name: 'adk_request_confirmation', response: 'approve?' },
      },
      'parts[0].functionResponse.response: Invalid input: expected object',
    ],
  ])('reports %s, naming the part and field', (_, part, problem) => {
    const scan = parseGates(request(part));
    expect(scan).toMatchObject({ kind: 'invalid', eventId: 'ev-1' });
    if (scan.kind !== 'invalid') return;
    expect(scan.problems).toHaveLength(1);
    expect(scan.problems[0]).toContain(problem);
  });

  it('makes the whole pause invalid when one of its gates is malformed', () => {
    const scan = parseGates(
      event({
        id: 'ev-2',
        author: 'agent',
        content: {
          role: 'user',
          parts: [
            confirmationCall('c-1', goodArgs),
            confirmationCall('c-2', { toolConfirmation: {} }),
          ],
        },
      }),
    );
    expect(scan).toMatchObject({ kind: 'invalid', eventId: 'ev-2' });
    if (scan.kind === 'invalid') expect(scan.problems.join('\n')).toContain('parts[1]');
  });

  it('refuses two requests with the same id in one event', () => {
    const scan = parseGates(
      event({
        id: 'ev-3',
        author: 'agent',
        content: { parts: [confirmationCall('c-1', goodArgs), confirmationCall('c-1', goodArgs)] },
      }),
    );
    expect(scan).toMatchObject({ kind: 'invalid', problems: [expect.stringContaining('c-1')] });
  });

  it('reads arguments of more than a megabyte', () => {
    const args = {
      note: 'x'.repeat(1_200_000),
      rows: Array.from({ length: 10_000 }, (_, i) => ({ i, label: `row ${i}`, tags: ['a', 'b'] })),
    };
    const text = JSON.stringify({
      id: 'big',
      author: 'agent',
      content: {
        role: 'user',
        parts: [
          confirmationCall('c-1', {
            ...goodArgs,
            originalFunctionCall: { id: 'o', name: 'import', args },
          }),
        ],
      },
    });
    expect(text.length).toBeGreaterThan(1_400_000);
    const scan = parseGates(event(JSON.parse(text)));
    expect(scan.kind).toBe('pause');
    if (scan.kind === 'pause') expect(scan.gates[0]?.originalCall.args).toEqual(args);
  });
});

describe('buildResume', () => {
  /** The `newMessage` a capture's request sent. */
  function sentMessage(name: string): unknown {
    return z.object({ newMessage: z.unknown() }).parse(loadCapture(name).request.body).newMessage;
  }

  it('approves with exactly the body of capture 10b', () => {
    const resume = buildResume(
      captureGates('10a_transfer_request'),
      { [TRANSFER_GATE.confirmationCallId]: { confirmed: true } },
      { resumable: false },
    );
    expect(resume).toEqual({ newMessage: expect.anything() });
    expect(JSON.stringify(resume.newMessage)).toBe(
      JSON.stringify(sentMessage('10b_transfer_approve')),
    );
  });

  it('rejects with exactly the body of capture 11b', () => {
    const [gate] = captureGates('11a_transfer_request');
    if (!gate) throw new Error('gate expected');
    const resume = buildResume([gate], new Map([[gate.confirmationCallId, { confirmed: false }]]), {
      resumable: false,
    });
    expect(resume.newMessage).toEqual(sentMessage('11b_transfer_reject'));
  });

  it('sends an edited payload with exactly the body of capture 13b', () => {
    const [gate] = captureGates('13a_vacation_request');
    if (!gate) throw new Error('gate expected');
    const resume = buildResume(
      [gate],
      { [gate.confirmationCallId]: { confirmed: true, payload: { approved_days: 2 } } },
      { resumable: false },
    );
    expect(JSON.stringify(resume.newMessage)).toBe(
      JSON.stringify(sentMessage('13b_vacation_approve_with_payload_streaming')),
    );
  });

  it('answers both gates of 16d in one message, as capture 16e', () => {
    const [transfer, invoice] = captureGates('16d_both_request');
    if (!transfer || !invoice) throw new Error('two gates expected');
    const resume = buildResume(
      [transfer, invoice],
      {
        [invoice.confirmationCallId]: { confirmed: false },
        [transfer.confirmationCallId]: { confirmed: true },
      },
      { resumable: false },
    );
    expect(JSON.stringify(resume.newMessage)).toBe(
      JSON.stringify(sentMessage('16e_both_answer_in_one_message')),
    );
  });

  it('adds the paused invocation id only for resumable targets', () => {
    const gates = captureGates('16a_both_request');
    const decisions = Object.fromEntries(
      gates.map((g) => [g.confirmationCallId, { confirmed: true }]),
    );
    expect(buildResume(gates, decisions, { resumable: false })).not.toHaveProperty('invocationId');
    expect(buildResume(gates, decisions, { resumable: true }).invocationId).toBe(
      'e-50903e26-257f-4e70-8001-9b0e0c36770e',
    );
  });

  it('refuses a resume that leaves a gate of the pause unanswered', () => {
    const [transfer, invoice] = captureGates('16a_both_request');
    if (!transfer || !invoice) throw new Error('two gates expected');
    const resume = () =>
      buildResume(
        [transfer, invoice],
        { [transfer.confirmationCallId]: { confirmed: true } },
        { resumable: false },
      );
    expect(resume).toThrow(AdkError);
    expect(resume).toThrow(`no decision for gate ${invoice.confirmationCallId}`);
  });

  it('refuses a decision for a gate that is not in the pause', () => {
    const resume = () =>
      buildResume(
        [TRANSFER_GATE],
        {
          [TRANSFER_GATE.confirmationCallId]: { confirmed: true },
          'adk-other': { confirmed: true },
        },
        { resumable: false },
      );
    expect(resume).toThrow(expect.objectContaining({ reason: 'invalid_resume' }));
    expect(resume).toThrow('adk-other');
  });

  it('refuses an empty pause, a gate listed twice, and a decision whose confirmed is not a boolean', () => {
    const id = TRANSFER_GATE.confirmationCallId;
    expect(() => buildResume([], {}, { resumable: false })).toThrow(AdkError);
    expect(() =>
      buildResume(
        [TRANSFER_GATE, TRANSFER_GATE],
        { [id]: { confirmed: true } },
        { resumable: false },
      ),
    ).toThrow('listed twice');
    const fromJson = JSON.parse(`{"${id}": {"confirmed": "true"}}`);
    expect(() => buildResume([TRANSFER_GATE], fromJson, { resumable: false })).toThrow('boolean');
  });

  it('refuses a resumable resume without the invocation id', () => {
    const { invocationId: _, ...gate } = TRANSFER_GATE;
    expect(() =>
      buildResume([gate], { [gate.confirmationCallId]: { confirmed: true } }, { resumable: true }),
    ).toThrow(expect.objectContaining({ reason: 'invalid_resume' }));
  });
});

describe('reading a run for the thread', () => {
  it('gives the final model text and skips partial chunks (13b)', () => {
    const events = captureEvents('13b_vacation_approve_with_payload_streaming');
    expect(events.map(isPartial)).toEqual([false, true, true, false]);
    expect(events.map(eventText)).toEqual([
      undefined,
      undefined,
      undefined,
      'Tool request_vacation returned {"status":"ok","requested_days":4,"approved_days":2}',
    ]);
  });

  it('lists the tools that ran, rejected and failed, leaving out the reserved calls', () => {
    const approved = captureEvents('16e_both_answer_in_one_message').flatMap(toolResults);
    expect(approved).toEqual([
      { callId: 'adk-5921db31-5b87-40b0-b50d-6a60b81ffe2c', name: 'transfer_money', status: 'ok' },
      {
        callId: 'adk-418790d7-2e61-4e6f-bafb-9ce1c06a80e8',
        name: 'pay_invoice',
        status: 'rejected',
      },
    ]);
    expect(captureEvents('15a_invoice_small_no_confirmation').flatMap(toolResults)).toEqual([
      { callId: 'adk-2edf755b-6e4a-4f53-a764-adf23d375d9e', name: 'pay_invoice', status: 'ok' },
    ]);
    expect(captureEvents('31a_ask_me_request').flatMap(toolResults)).toEqual([]);
    const failed = event({
      id: 'f',
      author: 'agent',
      content: {
        role: 'user',
        parts: [{ functionResponse: { id: 'c', name: 'lookup', response: { error: 'boom' } } }],
      },
    });
    expect(toolResults(failed)).toEqual([{ callId: 'c', name: 'lookup', status: 'failed' }]);
  });

  it('does not show a tool result or text that the user sent', () => {
    const fromUser = event({
      id: 'u',
      author: 'user',
      content: {
        role: 'user',
        parts: [
          { text: 'hi' },
          { functionResponse: { id: 'c', name: 'transfer_money', response: { confirmed: true } } },
        ],
      },
    });
    expect(eventText(fromUser)).toBeUndefined();
    expect(toolResults(fromUser)).toEqual([]);
  });
});

describe('parseIntentMismatch', () => {
  it('reads the call id and reason from the 12b error frame', () => {
    const [frame] = loadCapture('12b_timeoff_approve_with_payload').frameJson();
    const message = z.object({ error: z.string() }).parse(frame).error;
    expect(parseIntentMismatch(message)).toEqual({
      callId: 'adk-3f1859f8-946a-458b-a5e5-4cf82389139a',
      reason: 'confirmation_not_required',
    });
  });

  it('reads nothing from other errors', () => {
    expect(parseIntentMismatch("Agent 'no_such_app' not found in ./agents.")).toBeUndefined();
    expect(
      parseIntentMismatch('No function call event found for function responses ids: adk-unknown'),
    ).toBeUndefined();
  });
});
