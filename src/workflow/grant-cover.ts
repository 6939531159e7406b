import { type Gate, gateKind } from '../adk/gate.js';
import {
  argsDigest,
  type Grant,
  type GrantableCall,
  type GrantStore,
  sessionKeyOf,
} from '../approvals/grants.js';
import type { GatePolicy, PauseView } from '../approvals/records.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import type { ApprovalChecks } from './approval-checks.js';
import type { PolicyDecidedGate } from './policy-decisions.js';

/** Where a pause's calls come from, as grants match them. */
export interface GrantCoverContext {
  /** Who posted the pause (`originOfPause`): only grants given on that origin's pauses cover it. */
  origin: string;
  app: string;
  requester: string;
  adk: { userId: string; sessionId: string };
  now: number;
  log: Log;
  /**
   * May the grant's granter still approve this call under the policy in force? Asked before the
   * grant is used. Absent: not asked (the re-check before the resume asks it then).
   */
  granterMay?: (gate: Gate, grant: Grant) => Promise<boolean>;
}

/**
 * Marks each call a person's scoped grant covers: a confirmation the policy in force would ask a
 * person about, under a rule that still offers the grant's scope (a `deny`, an `allow` and an
 * input request are never covered). Each grant found has its use counted. A lookup that fails
 * asks a person, as if no grant existed.
 */
export async function coverByGrants<T extends PolicyDecidedGate & { policy: GatePolicy }>(
  grants: GrantStore | undefined,
  entries: readonly T[],
  context: GrantCoverContext,
): Promise<T[]> {
  if (grants === undefined) return [...entries];
  const covered: T[] = [];
  for (const entry of entries) {
    const offers = entry.policy.grants;
    if (entry.verdict !== undefined || !isConfirmation(entry.gate) || !offers?.length) {
      covered.push(entry);
      continue;
    }
    try {
      const call: GrantableCall = {
        origin: context.origin,
        app: context.app,
        tool: entry.gate.originalCall.name,
        requester: context.requester,
        rule: entry.policy.rule,
        offers,
        sessionKey: sessionKeyOf(context.adk),
        argsDigest: argsDigest(entry.gate.originalCall.args),
      };
      const found = await grants.use(call, context.now, { count: false });
      const holds =
        found !== undefined && (await (context.granterMay?.(entry.gate, found) ?? true));
      // Counted only once it decides: a grant whose granter may no longer approve decides nothing.
      const grant = holds ? await grants.use(call, context.now, { only: found.id }) : undefined;
      if (found !== undefined && !holds) {
        context.log.info('a grant whose granter may no longer approve is not used', {
          grant: found.id,
        });
      }
      covered.push(grant === undefined ? entry : { ...entry, grant });
    } catch (error) {
      context.log.warn('could not look up grants; a person is asked', {
        error: errorMessage(error),
      });
      covered.push(entry);
    }
  }
  return covered;
}

function isConfirmation(gate: Gate): boolean {
  return gateKind(gate) === 'confirmation';
}

/** The cover step's `granterMay` for a recorded pause, from the approval checks (absent: none). */
export function granterCheck(
  checks: Pick<ApprovalChecks, 'granterMayApprove'> | undefined,
  view: PauseView,
): Pick<GrantCoverContext, 'granterMay'> {
  if (checks === undefined) return {};
  return {
    granterMay: (gate, grant) =>
      checks.granterMayApprove(view, gate.confirmationCallId, grant.granter),
  };
}
