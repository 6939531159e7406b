import type { GateKind } from '../../adk/gate.js';
import type { GatePolicy } from '../records.js';
import type { Glob } from './glob.js';

/**
 * A validated approver policy: which rule applies to a tool call, and what it says. Rules already
 * carry the defaults they inherit, so resolving a gate is a first-match lookup and nothing else.
 */
export interface Policy {
  /** Where it came from (the file as named in POLICY_FILE), for logs. */
  readonly source: string;
  readonly defaults: ResolvedGatePolicy;
  /** In file order: the first rule that matches wins. */
  readonly rules: readonly PolicyRule[];
  /** Allowed but worth saying at start-up, each naming where in the file. */
  readonly warnings: readonly string[];
}

export interface PolicyRule {
  readonly match: { readonly app?: Glob; readonly tool?: Glob; readonly kind?: GateKind };
  /** Its `rule` is this rule's label, e.g. `rules[2]`. */
  readonly resolved: ResolvedGatePolicy;
}

/** What applies to one gate: the snapshot stored with it, and where its card goes. */
export interface ResolvedGatePolicy {
  readonly policy: GatePolicy;
  /** A channel id; absent: the channel the run was started from. */
  readonly channel?: string;
}

/**
 * What a gate asks about: the ADK app that raised it, the tool's name (`adk_request_input` for an
 * input request), and the gate's kind (absent: a confirmation).
 */
export interface GateSubject {
  app: string;
  tool: string;
  kind?: GateKind;
}

export const DEFAULTS_LABEL = 'defaults';

/** The first rule whose patterns match the app, the tool and the kind; none: the defaults. */
export function resolveGatePolicy(policy: Policy, subject: GateSubject): ResolvedGatePolicy {
  const rule = policy.rules.find(({ match }) => {
    return (
      (match.app === undefined || match.app.test(subject.app)) &&
      (match.tool === undefined || match.tool.test(subject.tool)) &&
      (match.kind === undefined || match.kind === (subject.kind ?? 'confirmation'))
    );
  });
  return copy(rule ? rule.resolved : policy.defaults);
}

/** Without a policy file nobody may approve anything: every gate's card says so (fails closed). */
export function emptyPolicy(): Policy {
  return {
    source: '(no policy file)',
    defaults: { policy: nobodyApproves(DEFAULTS_LABEL) },
    rules: [],
    warnings: [
      'No policy file (POLICY_FILE is not set): nobody may approve any tool call. Set POLICY_FILE to a file that names approvers (see examples/policy.yml).',
    ],
  };
}

export function nobodyApproves(rule: string): GatePolicy {
  return {
    rule,
    approvers: [],
    quorum: 1,
    selfApproval: false,
    onExpiry: 'reject',
    reasonRequired: false,
  };
}

/** Callers store and may change what they get; the policy itself stays as loaded. */
function copy(resolved: ResolvedGatePolicy): ResolvedGatePolicy {
  const policy = {
    ...resolved.policy,
    approvers: resolved.policy.approvers.map((a) => ({ ...a })),
  };
  return resolved.channel === undefined ? { policy } : { policy, channel: resolved.channel };
}
