import type { Content } from '../adk/wire.js';
import { buildResume } from '../adk/wire.js';
import { attestGate, type GateAttestation } from '../approvals/attestation.js';
import {
  type GateRecord,
  type GateState,
  type PauseView,
  policyRuleOf,
  SYSTEM_ACTOR,
} from '../approvals/records.js';
import { GRANT_ACTOR_PREFIX } from '../approvals/store/audit-chain.js';
import type { JsonValue } from '../json.js';
import type { PersonNames } from '../slack/person-names.js';
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
  /** `name` is Slack's display name, or the user id when Slack could not say. */
  decidedBy:
    | { slackUserId: string; name: string }
    | { system: true }
    /** `decision: allow` or `deny`: the rule that decided, and the policy file's SHA-256. */
    | { policy: { rule: string; version: string } }
    /** A person's scoped grant (`GET /v1/grants`): its id, and who gave it. */
    | { grant: { id: string } };
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
  const by = gate.decision?.by ?? SYSTEM_ACTOR;
  return {
    callId: gate.confirmationCallId,
    tool: gate.originalCall.name,
    state: gate.state,
    confirmed: decision.confirmed,
    ...(decision.payload === undefined ? {} : { payload: decision.payload }),
    ...(reason === undefined ? {} : { reason }),
    decidedBy: decidedBy(gate, by, names),
    decidedAt: gate.decision?.at ?? 0,
  };
}

function decidedBy(
  gate: GateRecord,
  by: string,
  names: ReadonlyMap<string, string>,
): GateDecisionBody['decidedBy'] {
  if (by === SYSTEM_ACTOR) return { system: true };
  const rule = policyRuleOf(by);
  if (rule !== undefined) return { policy: { rule, version: gate.policy.policyVersion ?? '' } };
  if (by.startsWith(GRANT_ACTOR_PREFIX))
    return { grant: { id: by.slice(GRANT_ACTOR_PREFIX.length) } };
  return { slackUserId: by, name: names.get(by) ?? by };
}

/** The names of the people who decided the pause's gates, by user id; never throws. */
export async function deciderNames(
  view: PauseView,
  people: PersonNames | undefined,
): Promise<Map<string, string>> {
  const ids = new Set(
    view.gates.flatMap((gate) =>
      gate.decision === undefined ||
      gate.decision.by === SYSTEM_ACTOR ||
      gate.decision.by.startsWith(GRANT_ACTOR_PREFIX) ||
      policyRuleOf(gate.decision.by) !== undefined
        ? []
        : [gate.decision.by],
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
