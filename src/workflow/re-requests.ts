import { canonicalJson } from '@adk-slack-approvals/adk-approvals/attestation';
import { type Gate, gateKind } from '../adk/gate.js';
import type { Clock } from '../approvals/clock.js';
import type { GateRecord, PauseView } from '../approvals/records.js';
import type { ApprovalStore } from '../approvals/store.js';
import type { ToolOutcome } from '../approvals/tool-outcomes.js';

/**
 * A confirmation the agent asks for again right after its approval, instead of running the call:
 * ADK JS 2.0's Workflow LlmAgent node re-runs its input when resumed, so the model makes the same
 * call anew (another call id) and ADK raises another request for it. Asking a person again would
 * loop (each approval brings the same request back) and nothing would ever run. The plugin stops
 * such a run the same way (packages/adk-approvals, `re_request`).
 */
export interface ReRequest {
  /** The gate of the resumed pause whose approval the agent did not act on. */
  approved: GateRecord;
  /** The request that asks again. */
  again: Gate;
}

/** What the approved gate's card notes (an outcome `failed`), in the plugin's words. */
export const RE_REQUEST_DETAIL =
  'the agent asked again for this same call instead of running it after the approval (an ADK Workflow LlmAgent node re-runs its input on resume): nothing ran, and no second card was posted';

/**
 * Splits a resume stream's gates: those that ask again for a call `answered` approved (same tool,
 * same arguments, another call id) while that call did not run in the stream (`ran`: the call ids
 * that answered in it), and the others, which are new requests.
 */
export function splitReRequests(
  gates: readonly Gate[],
  answered: PauseView | undefined,
  ran: ReadonlySet<string>,
): { asked: Gate[]; again: ReRequest[] } {
  const approved = (answered?.gates ?? []).filter(
    (gate) =>
      gate.state === 'approved' &&
      gateKind(gate) === 'confirmation' &&
      !ran.has(gate.originalCall.id),
  );
  if (approved.length === 0) return { asked: [...gates], again: [] };
  const asked: Gate[] = [];
  const again: ReRequest[] = [];
  for (const gate of gates) {
    const same = approved.find(
      (earlier) =>
        gateKind(gate) === 'confirmation' &&
        earlier.originalCall.id !== gate.originalCall.id &&
        earlier.originalCall.name === gate.originalCall.name &&
        canonicalJson(earlier.originalCall.args) === canonicalJson(gate.originalCall.args),
    );
    if (same === undefined) asked.push(gate);
    else again.push({ approved: same, again: gate });
  }
  return { asked, again };
}

/**
 * Approved calls the agent asked for again instead of running them: each gate notes it (an
 * outcome `failed`, in the trail and the API, as the plugin reports it). Returns the tool
 * outcomes the card shows, with these calls `asked_again`.
 */
export async function noteReRequests(
  deps: { store: Pick<ApprovalStore, 'reports'>; clock: Clock },
  pauseId: string,
  actor: string,
  reRequests: readonly ReRequest[],
  toolOutcomes: ReadonlyMap<string, ToolOutcome> = new Map(),
): Promise<Map<string, ToolOutcome>> {
  const outcomes = new Map(toolOutcomes);
  for (const { approved } of reRequests) {
    outcomes.set(approved.originalCall.id, 'asked_again');
    await deps.store.reports.recordOutcome({
      pauseId,
      callId: approved.confirmationCallId,
      outcome: { status: 'failed', detail: RE_REQUEST_DETAIL, at: deps.clock() },
      actor,
    });
  }
  return outcomes;
}
