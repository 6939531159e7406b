/**
 * An ADK plugin for agents that run their own `Runner`: it posts their confirmation requests to
 * adk-slack-approvals (one card per paused invocation) and runs a gated tool only on a decision
 * the service attested. See the package README and the app's docs/api.md.
 */
export {
  ApprovalsApiError,
  ApprovalsClient,
  type ApprovalsClientOptions,
  type DecisionPoll,
  type OutcomeStatus,
  type PauseToPost,
  type PostAnswer,
  type ResumeMode,
} from './approvals-client.js';
export {
  ApprovalsPlugin,
  type ApprovalsPluginOptions,
  type PostedPause,
  type Refusal,
  type UnsupportedRequest,
} from './approvals-plugin.js';
export {
  ATTESTATION_VERSION,
  attestationSignedBy,
  canonicalJson,
  type GateAttestation,
} from './attestation.js';
export {
  type CreatedPause,
  type DecidedBy,
  type Decision,
  decidedBySchema,
  decisionSchema,
  type UnsupportedAnswer,
} from './decision.js';
export {
  type CallVerdict,
  type EnforcementMode,
  judgeConfirmedCall,
  type RefusalReason,
} from './enforcement.js';
export {
  type ResumeWithDecisionOptions,
  type ResumeWithDecisionResult,
  type RunWithApprovalsOptions,
  type RunWithApprovalsResult,
  resumeWithDecision,
  runWithApprovals,
} from './run-with-approvals.js';
