/**
 * The approver policy: who may approve which tool calls, where the card goes, how many approvals
 * it takes, when it expires. Loaded once from POLICY_FILE, resolved per gate, checked per click.
 */
export {
  type ApproverDirectory,
  type ApproverDirectoryClient,
  ApproverDirectoryError,
  SlackApproverDirectory,
  type SlackApproverDirectoryOptions,
} from './policy/approver-directory.js';
export {
  type AuthorizeInput,
  type AuthorizeResult,
  authorize,
  eligibleApprovers,
  escalatedAt,
  isEscalated,
} from './policy/authorize.js';
export { formatDuration } from './policy/duration.js';
export {
  evaluatePolicy,
  fillPlaceholders,
  type PolicyCall,
  type PolicyVerdict,
  resolveGatePolicy,
} from './policy/evaluate.js';
export type { Glob } from './policy/glob.js';
export {
  objectProblems,
  type PayloadSchema,
  payloadProblem,
} from './policy/payload-schema.js';
export {
  canRouteCards,
  cardChannel,
  emptyPolicy,
  type GateSubject,
  isDirectMessage,
  type Policy,
  type PolicyRule,
  type ResolvedGatePolicy,
} from './policy/policy.js';
export {
  loadPolicyFile,
  type ParsePolicyResult,
  PolicyError,
  parsePolicy,
} from './policy/policy-file.js';
export { RISK_LEVELS, type RiskLevel, type RuleDecision } from './policy/policy-schema.js';
