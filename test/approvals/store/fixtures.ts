import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { Gate } from '../../../src/adk/gate.js';
import { type GatePolicy, pauseIdFor } from '../../../src/approvals/records.js';
import type { NewPause, VoteInput } from '../../../src/approvals/store-roles/pauses.js';
import { jsonObjectSchema } from '../../../src/json.js';

/**
 * Test data: the two gates of a real ADK JS 2.0 capture (transfer_money and pay_invoice raised
 * in one model turn, fixtures/adk/16a_both_request.response.txt), and builders around them.
 */

const capture = readFileSync(
  new URL('../../fixtures/adk/16a_both_request.response.txt', import.meta.url),
  'utf8',
);

const eventSchema = z.object({
  invocationId: z.string(),
  author: z.string(),
  content: z.object({
    parts: z.array(
      z.object({
        functionCall: z.object({ name: z.string(), id: z.string(), args: z.unknown() }).optional(),
      }),
    ),
  }),
});
const confirmationArgsSchema = z.object({
  originalFunctionCall: z.object({ name: z.string(), id: z.string(), args: jsonObjectSchema }),
  toolConfirmation: z.object({ hint: z.string() }),
});

function gatesOfCapture(): Gate[] {
  const gates: Gate[] = [];
  for (const line of capture.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    const event = eventSchema.parse(JSON.parse(line.slice('data: '.length)));
    for (const part of event.content.parts) {
      if (part.functionCall?.name !== 'adk_request_confirmation') continue;
      const args = confirmationArgsSchema.parse(part.functionCall.args);
      gates.push({
        confirmationCallId: part.functionCall.id,
        originalCall: args.originalFunctionCall,
        hint: args.toolConfirmation.hint,
        invocationId: event.invocationId,
        author: event.author,
      });
    }
  }
  return gates;
}

export const CAPTURED_GATES = gatesOfCapture();

export const APPROVER = 'U0APPROVER';
export const CHANNEL = 'C0APPROVALS';
/** An injected clock: far from Date.now(), so nothing depends on real time. */
export const T0 = 1_000_000;

export function policy(overrides: Partial<GatePolicy> = {}): GatePolicy {
  return {
    rule: 'rules[0]',
    approvers: [{ kind: 'user', id: APPROVER }],
    quorum: 1,
    selfApproval: false,
    onExpiry: 'reject',
    reasonRequired: false,
    ...overrides,
  };
}

let sessions = 0;

/**
 * A pause of the captured gates in a session of its own. `gates: 2` holds both captured gates;
 * `policies` gives each gate its policy (the last one repeats). Call ids get the session as a
 * suffix, unless `capturedCallIds` keeps them as captured (to repeat them across pauses).
 */
export function newPause(
  options: {
    gates?: 1 | 2;
    policies?: GatePolicy[];
    now?: number;
    channelId?: string;
    capturedCallIds?: boolean;
    args?: Record<string, string | number>;
  } = {},
): NewPause {
  sessions += 1;
  const sessionId = `s-${process.pid}-${sessions}-${Math.random().toString(36).slice(2, 8)}`;
  const adk = { appName: 'hitl_agent', userId: 'u1', sessionId, invocationId: 'e-test' };
  const policies = options.policies ?? [policy()];
  const gates = CAPTURED_GATES.slice(0, options.gates ?? 1).map((gate, i) => {
    const callId = options.capturedCallIds
      ? gate.confirmationCallId
      : `${gate.confirmationCallId}-${sessionId}`;
    return {
      ...gate,
      confirmationCallId: callId,
      originalCall: {
        ...gate.originalCall,
        args: { ...gate.originalCall.args, ...options.args },
      },
      policy: policies[Math.min(i, policies.length - 1)] ?? policy(),
    };
  });
  return {
    id: pauseIdFor('slack', adk, gates),
    adk,
    requester: 'U0REQUESTER',
    card: {
      teamId: 'T0TEAM',
      channelId: options.channelId ?? CHANNEL,
      threadTs: '1795326457.000100',
    },
    gates,
    now: options.now ?? T0,
  };
}

/** The call ids of a new pause, in order. */
export function callIdsOf(pause: NewPause): string[] {
  return pause.gates.map((gate) => gate.confirmationCallId);
}

export function firstCallId(pause: NewPause): string {
  const callId = pause.gates[0]?.confirmationCallId;
  if (callId === undefined) throw new Error('the pause has no gate');
  return callId;
}

/** APPROVER's approval of the pause's first gate at `now`; `more` adds to the vote or replaces. */
export function approvalOfFirstGate(
  pause: NewPause,
  now: number,
  more: Partial<VoteInput> = {},
): VoteInput {
  return {
    pauseId: pause.id,
    callId: firstCallId(pause),
    voter: APPROVER,
    choice: 'approve',
    now,
    ...more,
  };
}
