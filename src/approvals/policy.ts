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
  resolveGatePolicy,
} from './policy/policy.js';
export {
  loadPolicyFile,
  type ParsePolicyResult,
  PolicyError,
  parsePolicy,
} from './policy/policy-file.js';
