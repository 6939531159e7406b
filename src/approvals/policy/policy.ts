import type { GateKind } from '../../adk/gate.js';
import type { GatePolicy } from '../records.js';
import type { Condition } from './condition.js';
import type { Glob } from './glob.js';
import type { PolicySource, RiskLevel, RuleDecision } from './policy-schema.js';

/**
 * A validated approver policy: which rule applies to a tool call, and what it says. Rules already
 * carry the defaults they inherit, so resolving a gate is a first-match lookup and nothing else.
 */
export interface Policy {
  /** Where it came from (the file as named in POLICY_FILE), for logs. */
  readonly source: string;
  /** The SHA-256 (hex) of the file's bytes: every decision records the policy it was made under. */
  readonly version: string;
  readonly defaults: ResolvedGatePolicy;
  /** In file order: the first rule that matches wins. */
  readonly rules: readonly PolicyRule[];
  /** Allowed but worth saying at start-up, each naming where in the file. */
  readonly warnings: readonly string[];
  /**
   * Where a card goes when approvers cannot see the conversation its run started in (a direct
   * message) and its rule names no `channel`. Absent: such runs are refused before they start.
   */
  readonly approvalsChannel?: string;
  /** User ids who may withdraw any pending request, as its requester may. Absent: nobody else. */
  readonly admins?: readonly string[];
}

export interface PolicyRule {
  readonly match: {
    readonly app?: Glob;
    readonly tool?: Glob;
    readonly kind?: GateKind;
    /** Only calls met there (`slack`, `api`, `alert`). */
    readonly source?: PolicySource;
    /** Only calls met in runs whose labels match each of these. */
    readonly labels?: ReadonlyMap<string, Glob>;
  };
  /** `when:`: the rule applies only to calls it is true of. */
  readonly when?: Condition;
  /** `ask` (a person decides), `allow` or `deny` (the policy decides, no card). */
  readonly decision: RuleDecision;
  /** Shown, and for `deny` told to the model; `{{args.x}}` placeholders are filled per call. */
  readonly reason?: string;
  readonly risk?: RiskLevel;
  /** Its `rule` is this rule's name, or what it matches (`app=ops tool=restart_*`). */
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

/** A direct message (`D…`): only its two people see it, so no approver would see a card there. */
export function isDirectMessage(channelId: string): boolean {
  return channelId.startsWith('D');
}

/**
 * Where the card of a gate goes: its rule's `channel`; else, for a run in a direct message, the
 * policy's `approvalsChannel`; else the run's own conversation. `undefined`: nowhere an approver
 * could see it.
 */
export function cardChannel(
  policy: Policy,
  resolved: ResolvedGatePolicy,
  runChannel: string,
): string | undefined {
  if (resolved.channel !== undefined) return resolved.channel;
  if (!isDirectMessage(runChannel)) return runChannel;
  return policy.approvalsChannel;
}

/**
 * Whether a run of `app` started in `runChannel` can put its cards where approvers see them,
 * whatever tool asks: checked before the run starts. A rule for one tool may still route it.
 */
export function canRouteCards(policy: Policy, app: string, runChannel: string): boolean {
  if (!isDirectMessage(runChannel) || policy.approvalsChannel !== undefined) return true;
  if (policy.defaults.channel !== undefined) return true;
  const appRule = policy.rules.find(
    ({ match }) => match.tool === undefined && (match.app === undefined || match.app.test(app)),
  );
  return appRule?.resolved.channel !== undefined;
}

/** Without a policy file nobody may approve anything: every gate's card says so (fails closed). */
export function emptyPolicy(): Policy {
  return {
    source: '(no policy file)',
    version: 'none',
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
