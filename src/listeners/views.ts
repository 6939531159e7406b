import type { App, ViewResponseAction } from '@slack/bolt';
import { correlationId } from '../correlation.js';
import { errorMessage } from '../error-message.js';
import { CALLBACK_IDS } from '../slack/codecs/action-ids.js';
import { parseEditMetadata, parseRejectMetadata } from '../slack/codecs/modal-metadata.js';
import { parseInputSubmission } from '../slack/render/input-modal.js';
import { parseEditSubmission, parseRejectSubmission } from '../slack/render/modals.js';
import { renderRefusal } from '../slack/render/notices.js';
import type { Tell } from '../workflow/approval-workflow.js';
import type { DecisionReply } from '../workflow/decider.js';
import type { ListenerDeps } from './deps.js';
import { viewSubmissionSchema } from './payloads.js';

/** What a submission comes to, checked before the ack. */
type SubmissionOutcome =
  /** Shown in the modal, which stays open; nothing is decided. */
  | { kind: 'invalid'; errors: Record<string, string> }
  /** The modal closes and the person is told why not. */
  | { kind: 'refused'; reply: DecisionReply }
  /**
   * The modal closes, then the decision is made. `tell`: a later private word to the submitter,
   * when the store's answer was lost (the outcome is unknown, then found out and told).
   */
  | { kind: 'valid'; decide: (tell: Tell | undefined) => Promise<DecisionReply> };

interface Submission<M> {
  metadata: M;
  voter: string;
  values: unknown;
}

/**
 * The modals' submissions. The input is checked before the ack, so that mistakes are shown in
 * the modal (`response_action: errors`) and nothing is decided until the input is valid.
 */
export function registerApprovalViews(app: App, deps: ListenerDeps): void {
  const { workflow } = deps;

  onSubmission(app, deps, CALLBACK_IDS.editModal, parseEditMetadata, async (submission) => {
    const { metadata, voter } = submission;
    const check = await workflow.check(metadata.pauseId, [metadata.callId], voter);
    if (check.kind === 'refused') return { kind: 'refused', reply: check };
    const [gate] = check.gates;
    if (gate === undefined) return notFound();
    // The schema as recorded with the gate: the form that was shown enforced the same one.
    const form = parseEditSubmission(
      gate.payloadTemplate,
      submission.values,
      gate.policy.payloadSchema,
    );
    if (!form.ok) return { kind: 'invalid', errors: form.errors };
    return {
      kind: 'valid',
      decide: (tell) =>
        workflow.vote(
          {
            pauseId: metadata.pauseId,
            callId: metadata.callId,
            voter,
            choice: 'approve',
            payload: form.payload,
          },
          tell,
        ),
    };
  });

  // An input request's answer: invalid answers are refused on their field and nothing is recorded.
  onSubmission(app, deps, CALLBACK_IDS.inputModal, parseEditMetadata, async (submission) => {
    const { metadata, voter } = submission;
    const check = await workflow.check(metadata.pauseId, [metadata.callId], voter);
    if (check.kind === 'refused') return { kind: 'refused', reply: check };
    const [gate] = check.gates;
    if (gate === undefined) return notFound();
    const form = parseInputSubmission(gate, submission.values);
    if (!form.ok) return { kind: 'invalid', errors: form.errors };
    return {
      kind: 'valid',
      decide: (tell) =>
        workflow.vote(
          {
            pauseId: metadata.pauseId,
            callId: metadata.callId,
            voter,
            choice: 'approve',
            payload: form.value,
          },
          tell,
        ),
    };
  });

  onSubmission(app, deps, CALLBACK_IDS.rejectModal, parseRejectMetadata, async (submission) => {
    const { metadata, voter } = submission;
    // Without call ids (too many to fit the metadata) the rejection covers every pending gate.
    const callIds = metadata.callIds ?? [];
    const check = await workflow.check(metadata.pauseId, callIds, voter);
    if (check.kind === 'refused') return { kind: 'refused', reply: check };
    const reasonRequired = check.policies.some((policy) => policy.reasonRequired);
    const form = parseRejectSubmission(submission.values, { reasonRequired });
    if (!form.ok) return { kind: 'invalid', errors: form.errors };
    const vote = {
      pauseId: metadata.pauseId,
      voter,
      choice: 'reject' as const,
      ...(form.reason === undefined ? {} : { reason: form.reason }),
    };
    const [only] = callIds;
    return {
      kind: 'valid',
      decide: (tell) =>
        callIds.length === 1 && only !== undefined
          ? workflow.vote({ ...vote, callId: only }, tell)
          : workflow.voteAll(vote, tell),
    };
  });
}

/** The ack protocol of every approval modal, around what each modal checks. */
function onSubmission<M extends { channelId?: string | undefined }>(
  app: App,
  deps: ListenerDeps,
  callbackId: string,
  parseMetadata: (text: unknown) => M | undefined,
  check: (submission: Submission<M>) => Promise<SubmissionOutcome>,
): void {
  app.view(callbackId, async ({ ack, body }) => {
    const parsed = viewSubmissionSchema.safeParse(body);
    const metadata = parsed.success ? parseMetadata(parsed.data.view.private_metadata) : undefined;
    if (!parsed.success || metadata === undefined) {
      await ack();
      deps.log.warn('unreadable modal submission', { callbackId });
      return;
    }
    const voter = parsed.data.user.id;
    const report = reporter(deps, voter, metadata.channelId);
    try {
      const outcome = await check({ metadata, voter, values: parsed.data.view.state.values });
      if (outcome.kind === 'invalid') {
        await ack(errorsResponse(outcome.errors));
        return;
      }
      await ack();
      await report(
        outcome.kind === 'refused'
          ? outcome.reply
          : await outcome.decide(teller(deps, voter, metadata.channelId)),
      );
    } catch (error) {
      deps.log.error('handling a modal submission failed', {
        callbackId,
        error: errorMessage(error),
      });
      await ack().catch(() => {});
      await report({
        kind: 'refused',
        refusal: { kind: 'decision_failed', reference: correlationId() },
      });
    }
  });
}

function errorsResponse(errors: Record<string, string>): ViewResponseAction {
  return { response_action: 'errors', errors };
}

function notFound(): SubmissionOutcome {
  return { kind: 'refused', reply: { kind: 'refused', refusal: { kind: 'not_found' } } };
}

/**
 * The later word to a submitter whose decision's outcome was unknown, privately in the card's
 * channel; none when that channel did not fit the metadata.
 */
function teller(
  { slack, log }: ListenerDeps,
  user: string,
  channelId: string | undefined,
): Tell | undefined {
  if (channelId === undefined) return undefined;
  return async (message) => {
    try {
      await slack.postEphemeral({ channel: channelId, user, ...message });
    } catch (error) {
      log.warn('could not tell the person what became of their decision', {
        user,
        error: errorMessage(error),
      });
    }
  };
}

/**
 * A modal has no `response_url`: refusals go to the person as an ephemeral message in the card's
 * channel (or are logged when the card's channel did not fit the metadata).
 */
function reporter(
  { slack, log, homes }: ListenerDeps,
  user: string,
  channelId: string | undefined,
): (reply: DecisionReply) => Promise<void> {
  return async (reply) => {
    if (reply.kind === 'done') return;
    const { refusal } = reply;
    if (channelId === undefined) {
      // Opened from the App Home: no channel to answer in, so the Home says why.
      homes.refresh(user, renderRefusal(refusal).text);
      return;
    }
    try {
      await slack.postEphemeral({ channel: channelId, user, ...renderRefusal(refusal) });
    } catch (error) {
      log.warn('could not tell the person why', { user, error: errorMessage(error) });
    }
  };
}
