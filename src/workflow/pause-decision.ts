import type { Content } from '../adk/wire.js';
import { buildResume } from '../adk/wire.js';
import { attestGate, type GateAttestation } from '../approvals/attestation.js';
import { type DeciderKind, deciderOf } from '../approvals/deciders.js';
import {
  type GateRecord,
  type GateState,
  type PauseView,
  SYSTEM_ACTOR,
} from '../approvals/records.js';
import type { JsonValue } from '../json.js';
import type { PersonNames } from '../slack/transport/person-names.js';
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
  decidedBy: DecidedBy;
  decidedAt: number;
}

/**
 * Who decided a gate, in one shape wherever the API says it (the decision, `GET
 * /v1/pauses/{id}`, the webhook): `kind` (deciders.ts), `id` (a Slack user id, a rule's name, a
 * grant's id, an API key's name, or `system` for an expiry), a person's `name` (Slack's display
 * name, or the id when Slack could not say), and for the policy the `policyVersion` of the file
 * that decided. Documented in docs/api.md and docs/openapi.yaml.
 */
export interface DecidedBy {
  kind: DeciderKind;
  id: string;
  name?: string;
  policyVersion?: string;
  /** A person who decided under a hand-over while away: the approver they decided for (user id). */
  onBehalfOf?: string;
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

/**
 * The decision of a pause with no gate pending, attested with the key's signing secret. Pure:
 * `names` are the deciders' names, looked up beforehand (`deciderNames`).
 */
export function decisionBody(
  view: PauseView,
  signing: { keyName: string; secret: string },
  names: ReadonlyMap<string, string> = new Map(),
): DecisionBody {
  const cancelled = view.gates.some((gate) => gate.state === 'cancelled');
  const gates = view.gates.map((gate) => gateBody(gate, names));
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

function gateBody(gate: GateRecord, names: ReadonlyMap<string, string>): GateDecisionBody {
  const decision = gate.state === 'cancelled' ? { confirmed: false } : decisionFor(gate);
  const reason = rejectionReason(gate) ?? gate.decision?.reason;
  return {
    callId: gate.confirmationCallId,
    tool: gate.originalCall.name,
    state: gate.state,
    confirmed: decision.confirmed,
    ...(decision.payload === undefined ? {} : { payload: decision.payload }),
    ...(reason === undefined ? {} : { reason }),
    decidedBy: decidedByOf(gate, names),
    decidedAt: gate.decision?.at ?? 0,
  };
}

/** `names`: people's display names by user id (`deciderNames`); an id stands in for a missing one. */
export function decidedByOf(gate: GateRecord, names: ReadonlyMap<string, string>): DecidedBy {
  const decider = deciderOf(gate.decision?.by ?? SYSTEM_ACTOR);
  switch (decider.kind) {
    case 'person': {
      const onBehalfOf = gate.decision?.onBehalfOf;
      return {
        ...decider,
        name: names.get(decider.id) ?? decider.id,
        ...(onBehalfOf === undefined ? {} : { onBehalfOf }),
      };
    }
    case 'policy':
      return { ...decider, policyVersion: gate.policy.policyVersion ?? '' };
    default:
      return decider;
  }
}

/** The names of the people who decided the pause's gates, by user id; never throws. */
export async function deciderNames(
  view: PauseView,
  people: PersonNames | undefined,
): Promise<Map<string, string>> {
  const ids = new Set(
    view.gates.flatMap((gate) =>
      gate.decision !== undefined && deciderOf(gate.decision.by).kind === 'person'
        ? [gate.decision.by]
        : [],
    ),
  );
  const names = new Map<string, string>();
  if (people === undefined) return names;
  await Promise.all(
    [...ids].map(async (id) => {
      const name = await people.nameOf(id).catch(() => undefined);
      if (name !== undefined) names.set(id, name);
    }),
  );
  return names;
}
