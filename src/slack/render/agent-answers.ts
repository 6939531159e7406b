import type { GateOutcome, GateRecord } from '../../approvals/records.js';
import { escapeWithin } from '../codecs/escape.js';
import { slackDate } from '../codecs/mentions.js';
import type { GateContext } from './gate-context.js';

/**
 * A gate the agent answered itself: it reported an outcome (the approvals API's `…/outcome`) for
 * a call nobody here had decided, e.g. a plugin whose enforcement is `deny-only` or `off` ran a
 * `{confirmed: true}` someone sent straight to the runner. Its gate is closed with that fact;
 * these are the words the card and the trail use for it.
 */

type Reported = Pick<GateOutcome, 'status' | 'detail'>;

/** Why the gate was closed, as its decision records it (the trail and the card show it). */
export function answeredByAgentReason(tool: string, outcome: Reported): string {
  const why = outcome.detail === undefined ? '' : ` (${outcome.detail})`;
  switch (outcome.status) {
    case 'executed':
      return `${tool} ran without an approval from here${why}`;
    case 'failed':
      return `${tool} ran without an approval from here, and failed${why}`;
    case 'rejected':
      return `the agent answered ${tool} with a no itself, so it can no longer be approved${why}`;
    case 'blocked':
    case 'refused':
      return `the agent answered ${tool} itself, so it can no longer be approved${why}`;
  }
}

/** The gate's badge, when the agent answered it itself; else undefined. */
export function agentAnsweredBadge(
  gate: GateRecord,
  reported: GateOutcome['status'] | undefined,
): string | undefined {
  if (gate.state !== 'cancelled' || reported === undefined) return undefined;
  switch (reported) {
    case 'executed':
      return ':warning: Ran without an approval from here';
    case 'failed':
      return ':warning: Ran without an approval from here, and *failed*';
    case 'rejected':
      return ':x: Answered no by the agent itself';
    case 'blocked':
    case 'refused':
      return ':no_entry: Answered by the agent itself';
  }
}

/** "Closed by the agent <date>: <why>" for a gate the agent answered itself; else undefined. */
export function agentAnsweredText(
  gate: GateRecord,
  reported: GateOutcome['status'] | undefined,
  maxReason: number,
): string | undefined {
  const decision = gate.decision;
  if (agentAnsweredBadge(gate, reported) === undefined || decision === undefined) return undefined;
  const line = `Closed by the agent ${slackDate(decision.at)}`;
  const reason = decision.reason?.trim();
  return reason ? `${line}: ${escapeWithin(reason, Math.max(20, maxReason))}` : line;
}

/** The card's line for a pause that will not be resumed (a gate cancelled, or answered elsewhere). */
export function notResumedLine(contexts: readonly GateContext[]): string {
  const answered = contexts.some(({ gate, agentOutcome }) =>
    agentAnsweredBadge(gate, agentOutcome),
  );
  return answered
    ? ':no_entry_sign: Not resumed from here: the agent answered the call itself.'
    : ':no_entry_sign: Not resumed: a call was cancelled, so the agent will not be answered.';
}
