import type { Refusal, VoteCheck } from '../../approvals/outcomes.js';
import type { GateDecision, GateState } from '../../approvals/records.js';
import type { SlackMessage } from '../codecs/block-kit.js';
import { escapeWithin, inlineCode } from '../codecs/escape.js';
import { slackDate, userMention } from '../codecs/mentions.js';
import { approverName, deciderWords, expiryOutcome, listWithin } from './gate-lines.js';
import { outcomeOf } from './outcome-words.js';

/**
 * Ephemeral replies to a click that changes nothing: one sentence saying why, with no tool
 * arguments. The workflow's tagged results map onto `Refusal`; `renderRefusal` words each.
 * Mentions in an ephemeral message notify no one (only the clicker sees it).
 */

function decidedLine(state: GateState, decision: GateDecision, question: boolean): string {
  const when = slackDate(decision.at);
  const by = ` by ${deciderWords(decision)}`;
  switch (outcomeOf(state, decision.by, question)) {
    case 'approved':
      return `This was already approved${by} ${when}.`;
    case 'answered':
      return `This was already answered${by} ${when}.`;
    case 'rejected':
      return `This was already rejected${by} ${when}.`;
    case 'denied':
      return `This was already denied${by} ${when}.`;
    case 'expired':
      return `This expired ${when} and was rejected automatically.`;
    case 'expired_cancelled':
      return `This expired ${when} and was cancelled.`;
    case 'withdrawn':
      return `This was withdrawn${by} ${when}.`;
    case 'cancelled':
      return `This was cancelled${by} ${when}.`;
    case 'stood_down':
      return `This was stood down ${when}: ${escapeWithin(decision.reason ?? 'its alert resolved', 200)}.`;
    case 'pending':
      return 'This is still pending.';
  }
}

/** Why a click (or one call of a batch) changed nothing, in a sentence or two about "this". */
export function refusalLine(refusal: Refusal): string {
  switch (refusal.kind) {
    case 'not_approver': {
      const verb = refusal.question ? 'answer' : 'approve';
      return refusal.approvers.length === 0
        ? `You cannot ${verb} this: under the current policy nobody may.`
        : `You are not among those who may ${verb} this: ${listWithin(
            refusal.approvers.map((approver) => approverName(approver, 'the card’s channel')),
            1_500,
          )}.`;
    }
    case 'self_approval':
      return refusal.question
        ? 'You started this run, and the policy does not let you answer its questions yourself. To call it off, use Withdraw on the card.'
        : 'You started this run, and the policy does not let you approve or reject it yourself. To call it off, use Withdraw on the card.';
    case 'not_requester':
      return refusal.requester.startsWith('api:')
        ? 'Only a policy admin can withdraw this request: an agent posted it, and the agent can cancel it.'
        : `Only ${userMention(refusal.requester)}, who asked for this, or a policy admin can withdraw it.`;
    case 'not_decider':
      return 'Only the person who approved this, or a policy admin, can undo it.';
    case 'too_late':
      return 'Too late to undo: the agent has been given the decision.';
    case 'grant_not_offered':
      return 'The policy in force does not offer that grant for this call: nothing was approved. Approve it alone, or ask a policy admin.';
    case 'grant_on_behalf':
      return `You decide this for ${userMention(refusal.onBehalfOf)} while they are away: a grant for later calls is theirs to give. Nothing was approved; approve it alone.`;
    case 'grant_gone':
      return 'That grant has expired or was revoked already.';
    case 'not_grant_party':
      return 'Only the person who gave this grant, the person it covers, or a policy admin can revoke it.';
    case 'already_decided':
      return decidedLine(refusal.state, refusal.decision, refusal.question === true);
    case 'already_voted': {
      const { approvals, quorum } = refusal;
      const progress =
        approvals !== undefined && quorum !== undefined
          ? ` It has ${approvals} of ${quorum} approvals.`
          : '';
      return `You already voted on this; a person's vote counts once.${progress}`;
    }
    case 'expired': {
      const outcome = expiryOutcome(refusal.onExpiry ?? 'reject');
      const when = refusal.expiresAt === undefined ? '' : ` ${slackDate(refusal.expiresAt)}`;
      return `Too late: this expired${when} and was ${outcome}.`;
    }
    case 'not_found':
      return 'This request is no longer pending: it was decided, or the card is out of date.';
    case 'pause_gone':
      return PAUSE_GONE;
    case 'nobody_may_approve':
      return `Nobody may ${refusal.question ? 'answer' : 'approve'} this under the current policy (rule ${inlineCode(refusal.rule, 60)}).`;
    case 'reason_required':
      return refusal.rule === undefined
        ? 'The policy asks for a reason to reject this. Please give one.'
        : `The policy asks for a reason to reject this (rule ${inlineCode(refusal.rule, 60)}). Please give one.`;
    case 'not_batchable':
      return `Its rule (${inlineCode(refusal.rule, 60)}) says \`batch: false\`: decide it on its card, on its own.`;
    case 'answer_required':
      return 'The agent asked a question: answer it with the Answer button on the card.';
    case 'permission_check_failed':
      return 'Could not check whether you may approve this (Slack did not answer). Nothing changed; try again in a moment.';
    case 'decision_failed':
      return `Something went wrong and your decision was not recorded. Nothing changed; try again in a moment.${referenceOf(refusal.reference)}`;
    case 'outcome_unknown':
      return 'The store did not answer in time, so I cannot tell yet whether your decision was recorded. I am checking, and will tell you here.';
    case 'changed_meanwhile':
      return 'Others were deciding this at the same moment, and it changed each time your vote was checked. Nothing was recorded; look at the card and try again.';
    case 'cannot_post_here':
      return refusal.code === 'not_in_channel' || refusal.code === 'channel_not_found'
        ? 'I cannot post in this channel. Invite me first (`/invite @adk-approvals`), then run the command again.'
        : `I could not start the run here: Slack answered ${inlineCode(refusal.code, 60)}.`;
  }
}

/** The correlation id of what failed, for whoever reads the logs. */
export function referenceOf(reference: string | undefined): string {
  return reference === undefined ? '' : ` (Reference ${inlineCode(reference, 40)}.)`;
}

export function renderRefusal(refusal: Refusal): SlackMessage {
  return { text: `:no_entry: ${refusalLine(refusal)}` };
}

const PAUSE_GONE =
  'This approval is no longer on record: the app’s store has lost it. Nothing was decided and the agent was not resumed; run the agent again if the action is still needed.';

/** What a card becomes once a click finds its pause gone from the store: no buttons, and why. */
export function renderPauseGoneCard(): SlackMessage {
  return {
    text: 'This approval is no longer on record.',
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: `:warning: ${PAUSE_GONE}` } }],
  };
}

/** The truth about a vote whose outcome was unknown, once the store answered again. */
export function renderVoteCheck(check: VoteCheck): SlackMessage {
  switch (check.kind) {
    case 'recorded': {
      const states = [...new Set(check.states)].join(', ');
      return {
        text: `:white_check_mark: Checked: your decision was recorded after all (now: ${states}). The card shows it.`,
      };
    }
    case 'not_recorded':
      return {
        text: ':no_entry: Checked: your decision was not recorded. Nothing changed; click again to decide.',
      };
    case 'still_unknown':
      return {
        text: ':warning: The store is still out of reach, so I cannot tell whether your decision was recorded. Look at the card before clicking again.',
      };
  }
}
