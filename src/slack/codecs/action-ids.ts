import { LIMITS } from '@adk-slack-approvals/block-kit';
import { z } from 'zod';
import type { GrantScope } from '../../approvals/grants.js';
import { parseJsonText } from '../../json.js';

/**
 * Every id the app puts on interactive elements, and the encodings it reads back. Buttons and
 * menus carry opaque references only (a pause id, a call id or a gate's index), never arguments:
 * the listener loads the pause from the store and checks it there.
 */

export const ACTION_IDS = {
  /** Button on one gate. Value: `ButtonValue` with `callId`. */
  approve: 'approvals.approve',
  /** Button on one gate; opens the reject modal. Value: `ButtonValue` with `callId`. */
  reject: 'approvals.reject',
  /** Button on a gate with a payload template; opens the edit modal. Value: `ButtonValue` with `callId`. */
  edit: 'approvals.edit',
  /** Button on an input request; opens its answer form. Value: `ButtonValue` with `callId`. */
  answer: 'approvals.answer',
  /** Button under a card with two or more pending gates. Value: `ButtonValue` without `callId`. */
  approveAll: 'approvals.approve_all',
  /** Button under a card with two or more pending gates. Value: `ButtonValue` without `callId`. */
  rejectAll: 'approvals.reject_all',
  /**
   * Button on a card with a pending gate, shown to everyone; only the requester or a policy
   * admin may use it (others are told so). Value: `ButtonValue` without `callId`.
   */
  withdraw: 'approvals.withdraw',
  /** Button shown when resuming the agent failed. Value: `ButtonValue` without `callId`. */
  retryResume: 'approvals.retry_resume',
  /**
   * Button on a decided card while its undo window lasts; only the approver or a policy admin may
   * use it. Value: `ButtonValue` without `callId`.
   */
  undo: 'approvals.undo',
  /**
   * Overflow menu on a compact gate row, or the "Decide one…" select of a card too large for a
   * row per gate. `selected_option.value`: `GateChoice`.
   */
  gateMenu: 'approvals.gate_menu',
  /** Button on a gate in the App Home's "Waiting for you". Value: `ButtonValue` with `callId`. */
  homeApprove: 'approvals.home_approve',
  /** As `homeApprove`; opens the reject modal. */
  homeReject: 'approvals.home_reject',
  /** Button above the App Home's "Waiting for you": opens the batch modal. No value. */
  homeBatch: 'approvals.home_batch',
  /**
   * Buttons on a gate whose rule offers scoped grants: approve, and let the grant of that scope
   * decide later calls. Value: `ButtonValue` with `callId`; the scope is in the action id.
   */
  grantSession: 'approvals.grant_session',
  grantTime: 'approvals.grant_time',
  grantExactArgs: 'approvals.grant_exact_args',
  /** Button on a grant in the App Home's "Grants". Value: the grant id. */
  homeRevokeGrant: 'approvals.home_revoke_grant',
  /** Button on the App Home: opens the hand-over modal. No value. */
  homeHandOver: 'approvals.home_hand_over',
  /** Button on the App Home: ends (or calls off) the clicker's own hand-over. No value. */
  homeEndHandOver: 'approvals.home_end_hand_over',
} as const;
export type ActionId = (typeof ACTION_IDS)[keyof typeof ACTION_IDS];

export const CALLBACK_IDS = {
  /** The edit-and-approve modal. `private_metadata`: `EditMetadata` (see `modal-metadata.ts`). */
  editModal: 'approvals.edit_modal',
  /** The reject-with-reason modal. `private_metadata`: `RejectMetadata`. */
  rejectModal: 'approvals.reject_modal',
  /** An input request's answer form. `private_metadata`: `EditMetadata` (pause and call id). */
  inputModal: 'approvals.input_modal',
  /** The App Home's batch, step 1: pick calls and a decision (no metadata). */
  batchSelect: 'approvals.batch_select',
  /** The batch, step 2: exactly the picked calls. `private_metadata`: `BatchMetadata`. */
  batchConfirm: 'approvals.batch_confirm',
  /** The batch, step 3: what became of each call (no submit: nothing comes back). */
  batchResult: 'approvals.batch_result',
  /** The App Home's hand-over while away: who, from, until (no metadata: the clicker's own). */
  handOverModal: 'approvals.hand_over_modal',
} as const;

/** Reads JSON text with a schema; anything else (not JSON, wrong shape) is `undefined`. */
export function parseJsonWith<T>(schema: z.ZodType<T>, text: unknown): T | undefined {
  if (typeof text !== 'string') return undefined;
  const json = parseJsonText(text);
  if (!json.ok) return undefined;
  const parsed = schema.safeParse(json.value);
  return parsed.success ? parsed.data : undefined;
}

/** A button's `value`: `{"pauseId":"p…","callId":"adk-…"}`, `callId` absent for pause-wide buttons. */
export const buttonValueSchema = z.strictObject({
  pauseId: z.string().min(1),
  callId: z.string().min(1).optional(),
});
export type ButtonValue = z.infer<typeof buttonValueSchema>;

export function encodeButtonValue(value: ButtonValue): string {
  return JSON.stringify(
    value.callId === undefined
      ? { pauseId: value.pauseId }
      : { pauseId: value.pauseId, callId: value.callId },
  );
}

/** `undefined` for anything that is not a value this app wrote. */
export function parseButtonValue(value: unknown): ButtonValue | undefined {
  return parseJsonWith(buttonValueSchema, value);
}

/** A button value fits Slack's 2,000 characters unless a call id is absurdly long. */
export function fitsButtonValue(value: ButtonValue): boolean {
  return encodeButtonValue(value).length <= LIMITS.buttonValue;
}

export const GATE_DECISIONS = ['approve', 'reject', 'edit', 'answer'] as const;
export type GateDecisionChoice = (typeof GATE_DECISIONS)[number];

/**
 * A menu option's value, `{"p":"p…","i":3,"a":"approve"}`: option values are capped at 75
 * characters, too short for a call id, so the gate is named by its index in the pause's
 * `callIds` (fixed when the pause is recorded).
 */
const gateChoiceWireSchema = z.strictObject({
  p: z.string().min(1),
  i: z.number().int().min(0),
  a: z.enum(GATE_DECISIONS),
});

export interface GateChoice {
  pauseId: string;
  gateIndex: number;
  decision: GateDecisionChoice;
}

export function encodeGateChoice(choice: GateChoice): string {
  return JSON.stringify({ p: choice.pauseId, i: choice.gateIndex, a: choice.decision });
}

export function parseGateChoice(value: unknown): GateChoice | undefined {
  const wire = parseJsonWith(gateChoiceWireSchema, value);
  return wire && { pauseId: wire.p, gateIndex: wire.i, decision: wire.a };
}

/** Whether the pause id is short enough for menu option values (ids from `pauseIdFor` are). */
export function fitsGateChoice(pauseId: string, gateCount: number): boolean {
  const longest = encodeGateChoice({ pauseId, gateIndex: gateCount, decision: 'approve' });
  return longest.length <= LIMITS.optionValue;
}

/** The grant buttons' action ids by scope, and back. */
export const GRANT_ACTION_IDS = {
  session: ACTION_IDS.grantSession,
  time: ACTION_IDS.grantTime,
  exactArgs: ACTION_IDS.grantExactArgs,
} as const satisfies Record<GrantScope, ActionId>;
