import type { Content } from '../adk/wire.js';
import { buildResume } from '../adk/wire.js';
import { attestGate, type GateAttestation } from '../approvals/attestation.js';
import {
  type GateRecord,
  type GateState,
  type PauseView,
  SYSTEM_ACTOR,
} from '../approvals/records.js';
import type { JsonValue } from '../json.js';
import { decisionFor, rejectionReason } from './resume-decisions.js';

/** How long an attestation may be used to run the tool after the decision. */
export const ATTESTATION_TTL_MS = 24 * 60 * 60 * 1000;

export interface GateDecisionBody {
  callId: string;
  tool: string;
  state: GateState;
  confirmed: boolean;
  payload?: JsonValue;
  reason?: string;
  decidedBy: { slackUserId: string } | { system: true };
  decidedAt: number;
}

/** What an agent elsewhere receives once every gate of its pause is decided (long-poll, webhook). */
export interface DecisionBody {
  id: string;
  status: 'decided' | 'cancelled';
  gates: GateDecisionBody[];
  /** The user content that answers every gate, exactly what the app itself would send; absent when cancelled. */
  newMessage?: Content;
  attestation: { keyName: string; gates: GateAttestation[] };
}

/** The decision of a pause with no gate pending, attested with the key's signing secret. Pure. */
export function decisionBody(
  view: PauseView,
  signing: { keyName: string; secret: string },
): DecisionBody {
  const cancelled = view.gates.some((gate) => gate.state === 'cancelled');
  const gates = view.gates.map(gateBody);
  const attestations = view.gates.map((gate, index) => {
    const body = gates[index];
    return attestGate(signing.secret, {
      pauseId: view.pause.id,
      callId: gate.confirmationCallId,
      originalCallId: gate.originalCall.id,
      tool: gate.originalCall.name,
      args: gate.originalCall.args,
      confirmed: body?.confirmed ?? false,
      payload: body?.payload,
      expiresAt: Math.floor(
        ((gate.decision?.at ?? view.pause.createdAt) + ATTESTATION_TTL_MS) / 1000,
      ),
    });
  });
  return {
    id: view.pause.id,
    status: cancelled ? 'cancelled' : 'decided',
    gates,
    ...(cancelled
      ? {}
      : {
          newMessage: buildResume(
            view.gates,
            new Map(view.gates.map((g) => [g.confirmationCallId, decisionFor(g)])),
            { resumable: false },
          ).newMessage,
        }),
    attestation: { keyName: signing.keyName, gates: attestations },
  };
}

function gateBody(gate: GateRecord): GateDecisionBody {
  const decision = gate.state === 'cancelled' ? { confirmed: false } : decisionFor(gate);
  const reason = rejectionReason(gate) ?? gate.decision?.reason;
  const by = gate.decision?.by ?? SYSTEM_ACTOR;
  return {
    callId: gate.confirmationCallId,
    tool: gate.originalCall.name,
    state: gate.state,
    confirmed: decision.confirmed,
    ...(decision.payload === undefined ? {} : { payload: decision.payload }),
    ...(reason === undefined ? {} : { reason }),
    decidedBy: by === SYSTEM_ACTOR ? { system: true } : { slackUserId: by },
    decidedAt: gate.decision?.at ?? 0,
  };
}
