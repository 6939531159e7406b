import {
  type GatePolicy,
  type GateRecord,
  type PauseRecord,
  type PauseView,
  pauseIdFor,
} from '../../src/approvals/records.js';
import type { JsonValue } from '../../src/json.js';

/**
 * Records as the store hands them to the card builders. Names, ids, arguments and hints are
 * those of the ADK API server captures (transfer_money, pay_invoice, request_vacation).
 */

export const NOW = Date.UTC(2026, 10, 22, 5, 47, 37);
export const ADK = { appName: 'hitl_agent', userId: 'u1', sessionId: 's-both' };

export const POLICY: GatePolicy = {
  rule: 'rules[0]',
  approvers: [{ kind: 'user', id: 'UAPPROVER1' }],
  quorum: 1,
  selfApproval: false,
  expiresInMs: 3_600_000,
  onExpiry: 'reject',
  reasonRequired: false,
};

const TRANSFER_HINT =
  'Please approve or reject the tool call transfer_money() by responding with a FunctionResponse with an expected ToolConfirmation payload.';

export function gateRecord(overrides: Partial<GateRecord> & { index?: number } = {}): GateRecord {
  const { index = 0, ...rest } = overrides;
  return {
    confirmationCallId: `adk-10216514-a15a-46bd-ba42-b183900473${String(index).padStart(2, '0')}`,
    originalCall: {
      id: `adk-a0c5a5ee-39fe-4ae0-a959-85ddfab3d5${String(index).padStart(2, '0')}`,
      name: 'transfer_money',
      args: { amount: 100 },
    },
    hint: TRANSFER_HINT,
    pauseId: 'pending',
    policy: POLICY,
    state: 'pending',
    votes: [],
    createdAt: NOW - 60_000,
    expiresAt: NOW + 3_600_000,
    version: 1,
    ...rest,
  };
}

export function vacationGate(index = 0, template: JsonValue = { approved_days: 0 }): GateRecord {
  return gateRecord({
    index,
    originalCall: {
      id: `adk-vacation-${index}`,
      name: 'request_vacation',
      args: { days: 4 },
    },
    hint: 'Please approve or reject the request for 4 vacation days. Put the number of approved days in payload.approved_days.',
    payloadTemplate: template,
  });
}

/** A Workflow `RequestInput` node's question, as the 32a capture raises it. */
export function inputGate(index = 0): GateRecord {
  return gateRecord({
    index,
    kind: 'input',
    confirmationCallId: `budget-q-${index}`,
    originalCall: { id: `budget-q-${index}`, name: 'adk_request_input', args: {} },
    author: 'ask_budget',
    input: {
      message: 'What budget should I approve?',
      payload: { currency: 'USD' },
      responseSchema: { type: 'object', properties: { amount: { type: 'number' } } },
    },
  });
}

export function pauseView(gates: GateRecord[], overrides: Partial<PauseRecord> = {}): PauseView {
  const callIds = gates.map((gate) => gate.confirmationCallId);
  const id = pauseIdFor('slack', ADK, gates);
  const pause: PauseRecord = {
    id,
    adk: ADK,
    requester: 'UREQUESTER',
    card: { channelId: 'C0APPROVALS', ts: '1795326457.000100' },
    callIds,
    resume: { state: 'idle', attempts: 0 },
    createdAt: NOW - 60_000,
    version: 1,
    ...overrides,
  };
  return { pause, gates: gates.map((gate) => ({ ...gate, pauseId: id })) };
}

/** Every pending gate count from 1 to `max`. */
export function manyGates(
  count: number,
  make: (index: number) => GateRecord = (index) => gateRecord({ index }),
) {
  return Array.from({ length: count }, (_, index) => make(index));
}
