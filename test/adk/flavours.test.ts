import { describe, expect, it } from 'vitest';
import {
  type AdkEvent,
  isFinalResponse,
  parseEvent,
  parseGates,
  scanRequests,
  toolResults,
} from '../../src/adk/wire.js';
import { pauseIdFor } from '../../src/approvals/records.js';
import { StreamRequests } from '../../src/workflow/stream-requests.js';
import { loadCapture } from './capture.js';

/**
 * Events as ADK servers other than JS send them, built by hand from those servers' sources (Go,
 * Java) or description (adk-rs), and the JS captures of credential and input requests: every
 * pause is found, and no placeholder or rejection reads as a tool that ran.
 */

function event(json: unknown): AdkEvent {
  const parsed = parseEvent(json);
  if (!parsed.success) throw new Error(parsed.error.message);
  return parsed.data;
}

function captureEvents(name: string): AdkEvent[] {
  return loadCapture(name).frameJson().map(event);
}

const GO_CALL = { id: 'go-call-1', name: 'transfer', args: { amount: 5 } };

describe('ADK Go events', () => {
  const placeholder = event({
    id: 'e2',
    invocationId: 'e-go-1',
    author: 'bank',
    content: {
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: GO_CALL.id,
            name: GO_CALL.name,
            response: {
              error: 'error tool "transfer" requires confirmation, please approve or reject',
            },
          },
        },
      ],
    },
    actions: { requestedToolConfirmations: { [GO_CALL.id]: { hint: 'Send 5?' } } },
  });
  const request = event({
    id: 'e3',
    invocationId: 'e-go-1',
    author: 'bank',
    content: {
      role: 'model',
      parts: [
        {
          functionCall: {
            id: 'adk-go-req-1',
            name: 'adk_request_confirmation',
            args: {
              originalFunctionCall: GO_CALL,
              toolConfirmation: { hint: 'Send 5?', confirmed: false },
            },
          },
        },
      ],
    },
    longRunningToolIds: ['adk-go-req-1'],
  });

  it('the "requires confirmation" placeholder is not a tool run, and the request is one gate', () => {
    expect(toolResults(placeholder)).toEqual([]);
    const scan = parseGates(request);
    expect(scan).toMatchObject({
      kind: 'pause',
      gates: [{ confirmationCallId: 'adk-go-req-1', originalCall: { name: 'transfer' } }],
    });
    const requests = new StreamRequests();
    requests.add(placeholder);
    requests.add(request);
    expect(requests.summary().unraisedConfirmations).toEqual([]);
  });

  it('a rejection reads as rejected, not as a failed run', () => {
    const rejected = event({
      author: 'bank',
      content: {
        parts: [
          {
            functionResponse: {
              id: GO_CALL.id,
              name: GO_CALL.name,
              response: { error: 'error tool "transfer" call is rejected' },
            },
          },
        ],
      },
    });
    expect(toolResults(rejected)).toEqual([
      { callId: GO_CALL.id, name: 'transfer', status: 'rejected' },
    ]);
  });
});

describe('ADK Java events', () => {
  it('nulls for absent fields parse, the gate is found and nothing reads as ran', () => {
    const request = event({
      id: 'j1',
      invocationId: 'e-java-1',
      author: 'bank',
      branch: null,
      partial: null,
      turnComplete: null,
      errorCode: null,
      errorMessage: null,
      timestamp: 1_795_326_460_350,
      longRunningToolIds: ['adk-java-req'],
      actions: {
        stateDelta: {},
        artifactDelta: {},
        requestedToolConfirmations: {},
        requestedAuthConfigs: {},
        skipSummarization: null,
        transferToAgent: null,
        escalate: null,
      },
      content: {
        role: 'user',
        parts: [
          {
            functionCall: {
              id: 'adk-java-req',
              name: 'adk_request_confirmation',
              args: {
                originalFunctionCall: { id: 'java-call', name: 'transfer', args: {} },
                toolConfirmation: { hint: null, confirmed: false, payload: null },
              },
            },
            text: null,
            functionResponse: null,
          },
        ],
      },
    });
    expect(parseGates(request)).toMatchObject({
      kind: 'pause',
      gates: [{ confirmationCallId: 'adk-java-req', originalCall: { id: 'java-call' } }],
    });
    expect(toolResults(request)).toEqual([]);
  });
});

describe('ADK Java: a run cut off with no error frame', () => {
  // ADK Java's api_server fails a run with SseEmitter.completeWithError on a stream already
  // committed: no error frame, the stream just ends. Its events carry every absent field as null.
  const javaEvent = (fields: Record<string, unknown>) =>
    event({
      invocationId: 'e-java-2',
      author: 'bank',
      branch: null,
      partial: null,
      turnComplete: null,
      longRunningToolIds: null,
      actions: { skipSummarization: null, requestedToolConfirmations: {}, transferToAgent: null },
      ...fields,
    });
  const modelCall = javaEvent({
    content: {
      role: 'model',
      parts: [{ functionCall: { id: 'j-1', name: 'transfer', args: {} } }],
    },
  });
  const toolAnswer = javaEvent({
    content: {
      role: 'user',
      parts: [{ functionResponse: { id: 'j-1', name: 'transfer', response: { status: 'sent' } } }],
    },
  });
  const placeholder = javaEvent({
    content: {
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: 'j-1',
            name: 'transfer',
            response: { error: 'This tool call requires confirmation, please approve or reject.' },
          },
        },
      ],
    },
    actions: { requestedToolConfirmations: { 'j-1': { hint: 'Send?', confirmed: false } } },
  });

  it("a model's call or a tool's answer cannot end a run; the model's text can", () => {
    expect(isFinalResponse(modelCall)).toBe(false);
    expect(isFinalResponse(toolAnswer)).toBe(false);
    const text = javaEvent({ content: { role: 'model', parts: [{ text: 'Sent.' }] } });
    expect(isFinalResponse(text)).toBe(true);
    expect(isFinalResponse(javaEvent({ ...text, partial: true }))).toBe(false);
    expect(isFinalResponse(javaEvent({ ...toolAnswer, turnComplete: true }))).toBe(true);
  });

  it('the "requires confirmation" placeholder and the rejection are not tool runs', () => {
    expect(toolResults(placeholder)).toEqual([]);
    const rejected = javaEvent({
      content: {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: 'j-1',
              name: 'transfer',
              response: { error: 'This tool call is rejected.' },
            },
          },
        ],
      },
    });
    expect(toolResults(rejected)).toEqual([
      { callId: 'j-1', name: 'transfer', status: 'rejected' },
    ]);
    expect(toolResults(toolAnswer)).toEqual([{ callId: 'j-1', name: 'transfer', status: 'ok' }]);
  });
});

describe('adk-rs events', () => {
  const rsRequest = (invocationId: string) =>
    event({
      id: `rs-${invocationId}`,
      invocation_id: invocationId,
      author: 'bank',
      content: {
        role: 'model',
        parts: [
          {
            FunctionResponse: {
              id: 'call_1',
              name: 'adk_request_confirmation',
              will_continue: true,
              response: {
                originalFunctionCall: { id: 'call_1', name: 'transfer', args: { amount: 5 } },
                toolConfirmation: { hint: 'Send 5?', confirmed: false },
              },
            },
          },
          { Text: { text: 'Waiting for approval.' } },
        ],
      },
    });

  it('parts serialised as an externally tagged enum still raise the gate', () => {
    const scan = parseGates(rsRequest('inv-1'));
    expect(scan).toMatchObject({
      kind: 'pause',
      gates: [{ confirmationCallId: 'call_1', invocationId: 'inv-1' }],
    });
    expect(toolResults(rsRequest('inv-1'))).toEqual([]);
  });

  it('a later pause reusing the call id has a pause id of its own', () => {
    const adk = { appName: 'bank', userId: 'u', sessionId: 's' };
    const pauseOf = (invocationId: string) => {
      const scan = parseGates(rsRequest(invocationId));
      if (scan.kind !== 'pause') throw new Error('expected a pause');
      return pauseIdFor('slack', { ...adk, invocationId }, scan.gates);
    };
    expect(pauseOf('inv-2')).not.toBe(pauseOf('inv-1'));
    expect(pauseOf('inv-1')).toBe(pauseOf('inv-1'));
  });
});

describe('requests that get no card (ADK JS captures)', () => {
  it('a credential request names the tool, and its placeholder is not a tool run', () => {
    const events = captureEvents('30a_calendar_request');
    expect(events.flatMap(toolResults)).toEqual([]);
    const requests = new StreamRequests();
    for (const e of events) requests.add(e);
    expect(requests.summary()).toMatchObject({
      gates: [],
      credentialTools: ['read_calendar'],
      unraisedConfirmations: [],
    });
  });

  it("requestInputTool's and a Workflow node's input requests are read with their schema", () => {
    const [tool] = captureEvents('31a_ask_me_request').flatMap((e) => scanRequests(e).inputs);
    expect(tool).toMatchObject({
      message: 'Which cost center should be charged?',
      responseSchema: { type: 'object', required: ['cost_center'] },
    });
    const node = captureEvents('32a_workflow_start').flatMap((e) => scanRequests(e).inputs);
    expect(node).toEqual([
      expect.objectContaining({
        id: 'budget-q',
        author: 'ask_budget',
        payload: { currency: 'USD' },
        message: 'What budget should I approve?',
      }),
    ]);
  });

  it('a second confirmation that ADK JS raised no request for is reported, never as a run', () => {
    // What ADK JS 2.0.0 streams when a resumed tool asks for confirmation again.
    const secondAsk = event({
      invocationId: 'e-2',
      author: 'two_stage',
      content: {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: 'adk-deploy',
              name: 'deploy_service',
              response: { status: 'Waiting for the change board.' },
            },
          },
        ],
      },
      actions: {
        requestedToolConfirmations: {
          'adk-deploy': { hint: 'Change board: sign off.', confirmed: false },
        },
      },
    });
    expect(toolResults(secondAsk)).toEqual([]);
    const requests = new StreamRequests();
    requests.add(secondAsk);
    expect(requests.summary().unraisedConfirmations).toEqual([
      { tool: 'deploy_service', hint: 'Change board: sign off.' },
    ]);
  });
});
