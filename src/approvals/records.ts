import { createHash } from 'node:crypto';
import { z } from 'zod';
import { gateSchema } from '../adk/gate.js';
import { jsonValueSchema } from '../json.js';
import { argsDigest, grantOfferSchema } from './grants.js';
import { payloadSchemaSchema } from './policy/payload-schema.js';

/**
 * What the store keeps for each pause and each of its gates: everything needed to render the
 * card and to resume the invocation without any other state. Records are parsed with these
 * schemas whenever they are read back.
 */

/** Who may approve: a user, a user group (`S…`, resolved when a click is checked), or the card channel's members. */
export const approverSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('user'), id: z.string().min(1) }),
  z.object({ kind: z.literal('usergroup'), id: z.string().min(1) }),
  z.object({ kind: z.literal('channel') }),
]);
export type Approver = z.infer<typeof approverSchema>;

/** The policy that applied to a gate when it was recorded (see the policy file's rule fields). */
export const gatePolicySchema = z.object({
  /**
   * Which entry of the policy file matched, by its name (`large-refunds`, or for an unnamed rule
   * what it matches: `app=ops tool=restart_*`) or `defaults`: for the card, grants and the audit.
   */
  rule: z.string(),
  /** Empty: nobody may approve (fails closed); the card says so. */
  approvers: z.array(approverSchema),
  quorum: z.number().int().min(1),
  selfApproval: z.boolean(),
  /** Absent: the gate never expires. */
  expiresInMs: z.number().int().positive().optional(),
  onExpiry: z.enum(['reject', 'timeout', 'cancel']),
  /** Approvers who have not voted are reminded once, this long after the gate was recorded. */
  remindAfterMs: z.number().int().positive().optional(),
  /** From this long after the gate was recorded, `escalateTo` may approve too (both or neither). */
  escalateAfterMs: z.number().int().positive().optional(),
  escalateTo: z.array(approverSchema).optional(),
  reasonRequired: z.boolean(),
  /** `false`: the gate is never decided in a batch from the App Home. Absent: it may be. */
  batch: z.boolean().optional(),
  /**
   * `false`: nobody decides the gate for an approver who handed over while away (the approver's
   * own standing only). Absent: a hand-over applies.
   */
  delegation: z.boolean().optional(),
  /** The resume waits this long after an approval, during which its decider may undo it. */
  undoWindowMs: z.number().int().positive().optional(),
  /** Scoped grants the card offers beside Approve (grants.ts). Absent: none. */
  grants: z.array(grantOfferSchema).optional(),
  /** Approving asks "are you sure?" first (money, deletions). Absent: false. */
  confirm: z.boolean().optional(),
  /** What the edit form enforces on the payload before an approval is spent. */
  payloadSchema: payloadSchemaSchema.optional(),
  /** The rule's `risk:`, shown on the card. */
  risk: z.enum(['low', 'medium', 'high', 'critical']).optional(),
  /** The rule's `when:` as written; `error`: it could not be evaluated, so a person is asked. */
  condition: z.object({ text: z.string(), error: z.string().optional() }).optional(),
  /** The rule's `reason:`, its placeholders filled for this call: shown on the card. */
  reason: z.string().optional(),
  /** The SHA-256 of the policy file the gate was resolved under. */
  policyVersion: z.string().optional(),
  /** Argument paths (`card.number`) the audit trail records as `[redacted]`. */
  redact: z.array(z.string()).optional(),
});
export type GatePolicy = z.infer<typeof gatePolicySchema>;

/** Where the paused invocation lives on the ADK API server. */
export const adkCoordinatesSchema = z.object({
  appName: z.string().min(1),
  userId: z.string().min(1),
  sessionId: z.string().min(1),
  invocationId: z.string().optional(),
});
export type AdkCoordinates = z.infer<typeof adkCoordinatesSchema>;

/** Where the card lives in Slack. `ts` is set once the card has been posted. */
export const cardLocationSchema = z.object({
  teamId: z.string().optional(),
  channelId: z.string().min(1),
  threadTs: z.string().optional(),
  ts: z.string().optional(),
});
export type CardLocation = z.infer<typeof cardLocationSchema>;

/**
 * `withdrawn`: the requester (or a policy admin) called the request off; the agent is answered
 * with a refusal that says so (see `decisionFor`).
 */
export const GATE_STATES = [
  'pending',
  'approved',
  'rejected',
  'expired',
  'cancelled',
  'withdrawn',
] as const;
export const gateStateSchema = z.enum(GATE_STATES);
export type GateState = z.infer<typeof gateStateSchema>;

export const voteSchema = z.object({
  voter: z.string().min(1),
  choice: z.enum(['approve', 'reject']),
  at: z.number(),
  /** An edited payload (Edit & approve). */
  payload: jsonValueSchema.optional(),
  /** Why the voter rejected. */
  reason: z.string().optional(),
  /** The approver the voter decided for, under a hand-over while away. */
  onBehalfOf: z.string().optional(),
});
export type Vote = z.infer<typeof voteSchema>;

/** How a gate left `pending`. `by` is a Slack user id (or `api:<key>`), or `system` for expiry. */
export const gateDecisionSchema = z.object({
  by: z.string().min(1),
  /**
   * The decider's Slack display name when they decided, for the audit (the id stays the
   * authority); absent when Slack could not say, or for the policy, a key or an expiry.
   */
  byName: z.string().optional(),
  at: z.number(),
  payload: jsonValueSchema.optional(),
  reason: z.string().optional(),
  /** The approver the decider decided for, under a hand-over while away (see `Vote`). */
  onBehalfOf: z.string().optional(),
});
export type GateDecision = z.infer<typeof gateDecisionSchema>;

export const SYSTEM_ACTOR = 'system';

/** A gate decided by the policy (`decision: allow` or `deny`) names its rule: `policy:<rule>`. */
export const POLICY_ACTOR_PREFIX = 'policy:';

export function policyActor(rule: string): string {
  return `${POLICY_ACTOR_PREFIX}${rule}`;
}

/** The rule's name when the policy decided; undefined for a person, a key or the system. */
export function policyRuleOf(by: string): string | undefined {
  return by.startsWith(POLICY_ACTOR_PREFIX) ? by.slice(POLICY_ACTOR_PREFIX.length) : undefined;
}

/**
 * A gate sent back to pending: by the re-check before a resume (`voter`: whose approval no longer
 * held; `why`: the reason, without names or arguments), or undone in its undo window (`kind:
 * 'undo'`, `voter`: who undid it).
 */
export const reopenedSchema = z.object({
  at: z.number(),
  voter: z.string(),
  why: z.string(),
  kind: z.enum(['recheck', 'undo']).optional(),
});
export type Reopened = z.infer<typeof reopenedSchema>;

export const gateRecordSchema = gateSchema.extend({
  pauseId: z.string().min(1),
  policy: gatePolicySchema,
  state: gateStateSchema,
  votes: z.array(voteSchema),
  decision: gateDecisionSchema.optional(),
  /**
   * The last time an approval was sent back to pending by the re-check before its resume, and
   * why (an approver no longer allowed): the card says so until someone decides again.
   */
  reopened: reopenedSchema.optional(),
  createdAt: z.number(),
  expiresAt: z.number().optional(),
  version: z.number().int().min(1),
});
export type GateRecord = z.infer<typeof gateRecordSchema>;

/**
 * Resuming a pause: `idle` until every gate is decided and someone claims it; `resuming` while a
 * replica holds the lease; then `resumed`, or `failed` (retryable: the agent does not hold the
 * answers), or `refused` (the agent received the answers and refused them, e.g. ADK's
 * IntentMismatchError: nothing ran and sending them again cannot help), or `abandoned` when a gate
 * was cancelled and the invocation will not be answered.
 */
export const RESUME_STATES = [
  'idle',
  'resuming',
  'resumed',
  'failed',
  'refused',
  'abandoned',
] as const;
export const resumeSchema = z.object({
  state: z.enum(RESUME_STATES),
  attempts: z.number().int().min(0),
  leaseOwner: z.string().optional(),
  leaseUntil: z.number().optional(),
  lastError: z.string().optional(),
  /** When the state last changed. */
  at: z.number().optional(),
  /** An undo window: the resume is not claimed before then (ms), and the decider may undo. */
  holdUntil: z.number().optional(),
});
export type ResumeStatus = z.infer<typeof resumeSchema>;

/**
 * Resumes that are over: a claim answers `finished`, and no transition changes the pause or its
 * gates again (only its notes, outside its versions).
 */
export const FINISHED_RESUME_STATES = [
  'resumed',
  'refused',
  'abandoned',
] as const satisfies readonly ResumeStatus['state'][];

export function isFinishedResume(state: ResumeStatus['state']): boolean {
  return FINISHED_RESUME_STATES.some((finished) => finished === state);
}

/**
 * How an agent that runs elsewhere gets its decision back: the app resumes it on a configured ADK
 * target (never a URL from the request), POSTs it to a webhook URL the key allows, or sends
 * nothing and the agent long-polls.
 */
export const resumeModeSchema = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('adk'), target: z.string().min(1) }),
  z.object({ mode: z.literal('webhook'), url: z.string().min(1) }),
  z.object({ mode: z.literal('poll') }),
]);
export type ResumeMode = z.infer<typeof resumeModeSchema>;

/** A pause posted through the approvals API (absent: the app's own `/agent` run raised it). */
export const externalOriginSchema = z.object({
  /** The name of the API key that posted it: its scope governs reads, cancels and webhooks. */
  keyName: z.string().min(1),
  resume: resumeModeSchema,
  title: z.string().optional(),
  links: z.array(z.object({ text: z.string(), url: z.string() })).optional(),
  requestedBy: z
    .object({
      slackUserId: z.string().optional(),
      email: z.string().optional(),
      name: z.string().optional(),
    })
    .optional(),
});
export type ExternalOrigin = z.infer<typeof externalOriginSchema>;

/**
 * What the agent reported after a decision (`POST /v1/pauses/{id}/outcome`): the call ran
 * (`executed`, `failed`), it refused the call (`blocked`), the call was answered no
 * (`rejected`), or it received the decision and did not act on it, so nothing ran (`refused`:
 * ADK's IntentMismatchError, or a driver that could not resume with it).
 */
export const OUTCOME_STATUSES = ['executed', 'failed', 'blocked', 'rejected', 'refused'] as const;
export const gateOutcomeSchema = z.object({
  status: z.enum(OUTCOME_STATUSES),
  detail: z.string().optional(),
  at: z.number(),
});
export type GateOutcome = z.infer<typeof gateOutcomeSchema>;

/** Where the webhook delivery of a decision stands; kept beside the pause for the card. */
export const deliveryStatusSchema = z.object({
  state: z.enum(['delivering', 'delivered', 'retrying']),
  attempts: z.number().int().min(0),
  /** Why the last attempt failed (an HTTP status or a network error), never the response body. */
  lastError: z.string().optional(),
  at: z.number(),
});
export type DeliveryStatus = z.infer<typeof deliveryStatusSchema>;

/** An agent's claim to run a decided gate's call (`POST /v1/pauses/{id}/claim`). */
export const gateClaimSchema = z.object({ by: z.string(), at: z.number() });
export type GateClaim = z.infer<typeof gateClaimSchema>;

/** Facts about a pause recorded after its decision, outside the transitions. */
export interface PauseNotes {
  outcomes: Record<string, GateOutcome>;
  delivery?: DeliveryStatus;
  /** The gates an agent claimed to run, by confirmation call id: it has taken the decision. */
  claims?: Record<string, GateClaim>;
}

export const pauseRecordSchema = z.object({
  id: z.string().min(1),
  /** Present for pauses posted through the approvals API. */
  external: externalOriginSchema.optional(),
  adk: adkCoordinatesSchema,
  /** The Slack user who started the run (not allowed to approve it unless the policy says so). */
  requester: z.string().min(1),
  card: cardLocationSchema,
  /**
   * The run's thread, where the agent's answers go. Absent: the card's own thread. It differs from
   * the card when the policy sends cards to another channel.
   */
  runThread: z.object({ channelId: z.string().min(1), threadTs: z.string().min(1) }).optional(),
  /**
   * For a card posted away from its run: what was asked and a link to the run, so approvers see
   * the request in context.
   */
  origin: z.object({ prompt: z.string().optional(), permalink: z.string().optional() }).optional(),
  /** The gates' confirmation call ids, in the order ADK raised them. */
  callIds: z.array(z.string().min(1)).min(1),
  /** The W3C `traceparent` of the pause's span: its decisions and resume join that trace. */
  traceparent: z.string().optional(),
  resume: resumeSchema,
  createdAt: z.number(),
  version: z.number().int().min(1),
});
export type PauseRecord = z.infer<typeof pauseRecordSchema>;

/** A pause with its gates, in `callIds` order. */
export interface PauseView {
  pause: PauseRecord;
  gates: GateRecord[];
}

/**
 * Grows with every change to the pause or any of its gates: each record's version only grows,
 * so an equal sum means nothing changed.
 */
export function viewVersion(view: PauseView): number {
  return gatesVersion(view) + view.pause.version;
}

/**
 * Grows with every change to any of the pause's gates (a vote, a decision, an expiry, an undo, a
 * reopen): with the pause's facts fixed at its creation (requester, app, channel, origin), all a
 * voter's check reads. The pause's own changes (its card posted, its resume) leave it as it is.
 */
export function gatesVersion(view: PauseView): number {
  return view.gates.reduce((sum, gate) => sum + gate.version, 0);
}

/**
 * Who posted a pause: `slack` (a run started in Slack) or `api:<key>` (the approvals API, by that
 * key). A pause, its decision and the grants given on it never answer another origin's calls.
 */
export type PauseOrigin = 'slack' | `api:${string}`;

export function originOfPause(pause: Pick<PauseRecord, 'external'>): PauseOrigin {
  return pause.external === undefined ? 'slack' : `api:${pause.external.keyName}`;
}

/** What a pause answers: one gate's call, as its identity counts it. */
export interface IdentityCall {
  confirmationCallId: string;
  originalCall: { name: string; args: Record<string, unknown> };
  invocationId?: string;
}

/**
 * A pause's id: derived from who posted it, where it lives, which invocation raised it and which
 * calls it holds (each call's id, tool and arguments digest), so that recording the same pause
 * twice (a retried stream or post, a second replica) lands on the same records, while a call id
 * used again by a later invocation (adk-rs asks again with the original call's id), for another
 * tool or other arguments, or by another key, is a new pause and never the old one's decision.
 */
export function pauseIdFor(
  origin: PauseOrigin,
  adk: AdkCoordinates,
  calls: readonly IdentityCall[],
): string {
  const hash = createHash('sha256');
  hash.update(
    JSON.stringify([
      'pause/2',
      origin,
      adk.appName,
      adk.userId,
      adk.sessionId,
      adk.invocationId ?? null,
      calls
        .map((call) => [
          call.confirmationCallId,
          call.originalCall.name,
          argsDigest(call.originalCall.args),
          call.invocationId ?? null,
        ])
        .sort(byFirst),
    ]),
  );
  return `p${hash.digest('base64url').slice(0, 21)}`;
}

function byFirst(a: readonly unknown[], b: readonly unknown[]): number {
  const [x, y] = [String(a[0]), String(b[0])];
  return x < y ? -1 : x > y ? 1 : 0;
}
