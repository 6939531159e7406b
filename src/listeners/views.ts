import type { AckFn, App, ViewResponseAction } from '@slack/bolt';
import type { DecisionReply, VoterCheck } from '../approvals/workflow/decider.js';
import { errorMessage } from '../error-message.js';
import { CALLBACK_IDS } from '../slack/action-ids.js';
import { parseEditMetadata, parseRejectMetadata } from '../slack/modal-metadata.js';
import { parseEditSubmission, parseRejectSubmission } from '../slack/modals.js';
import { renderRefusal } from '../slack/notices.js';
import type { ListenerDeps } from './index.js';
import { viewSubmissionSchema } from './payloads.js';

/**
 * The modals' submissions. The input is checked before the ack, so that mistakes are shown in
 * the modal (`response_action: errors`) and nothing is decided until the input is valid.
 */
export function registerApprovalViews(app: App, deps: ListenerDeps): void {
  const { workflow, log } = deps;

  app.view(CALLBACK_IDS.editModal, async ({ ack, body }) => {
    const submission = viewSubmissionSchema.safeParse(body);
    const metadata = submission.success
      ? parseEditMetadata(submission.data.view.private_metadata)
      : undefined;
    if (!submission.success || metadata === undefined) {
      await ack();
      log.warn('unreadable edit-and-approve submission');
      return;
    }
    const voter = submission.data.user.id;
    const report = reporter(deps, voter, metadata.channelId);
    try {
      const check = await workflow.check(metadata.pauseId, [metadata.callId], voter);
      const gate = check.kind === 'allowed' ? check.gates[0] : undefined;
      if (check.kind === 'refused' || gate === undefined) {
        await ack();
        await report(refusalOf(check));
        return;
      }
      const form = parseEditSubmission(gate.payloadTemplate, submission.data.view.state.values);
      if (!form.ok) {
        await ack(errorsResponse(form.errors));
        return;
      }
      await ack();
      await report(
        await workflow.vote({
          pauseId: metadata.pauseId,
          callId: metadata.callId,
          voter,
          choice: 'approve',
          payload: form.payload,
        }),
      );
    } catch (error) {
      await failed(deps, ack, report, error);
    }
  });

  app.view(CALLBACK_IDS.rejectModal, async ({ ack, body }) => {
    const submission = viewSubmissionSchema.safeParse(body);
    const metadata = submission.success
      ? parseRejectMetadata(submission.data.view.private_metadata)
      : undefined;
    if (!submission.success || metadata === undefined) {
      await ack();
      log.warn('unreadable reject submission');
      return;
    }
    const voter = submission.data.user.id;
    const report = reporter(deps, voter, metadata.channelId);
    // Without call ids (too many to fit the metadata) the rejection covers every pending gate.
    const callIds = metadata.callIds ?? [];
    try {
      const check = await workflow.check(metadata.pauseId, callIds, voter);
      if (check.kind === 'refused') {
        await ack();
        await report(refusalOf(check));
        return;
      }
      const reasonRequired = check.policies.some((policy) => policy.reasonRequired);
      const form = parseRejectSubmission(submission.data.view.state.values, { reasonRequired });
      if (!form.ok) {
        await ack(errorsResponse(form.errors));
        return;
      }
      await ack();
      const reason = form.reason === undefined ? {} : { reason: form.reason };
      const [only] = callIds;
      await report(
        callIds.length === 1 && only !== undefined
          ? await workflow.vote({
              pauseId: metadata.pauseId,
              callId: only,
              voter,
              choice: 'reject',
              ...reason,
            })
          : await workflow.voteAll({
              pauseId: metadata.pauseId,
              voter,
              choice: 'reject',
              ...reason,
            }),
      );
    } catch (error) {
      await failed(deps, ack, report, error);
    }
  });
}

function errorsResponse(errors: Record<string, string>): ViewResponseAction {
  return { response_action: 'errors', errors };
}

function refusalOf(check: VoterCheck): DecisionReply {
  return check.kind === 'refused' ? check : { kind: 'refused', refusal: { kind: 'not_found' } };
}

/**
 * A modal has no `response_url`: refusals go to the person as an ephemeral message in the card's
 * channel (or are logged when the card's channel did not fit the metadata).
 */
function reporter(
  { slack, log }: ListenerDeps,
  user: string,
  channelId: string | undefined,
): (reply: DecisionReply) => Promise<void> {
  return async (reply) => {
    if (reply.kind === 'done') return;
    const { refusal } = reply;
    if (channelId === undefined) {
      log.warn('a refusal could not be shown: the card channel is unknown', {
        user,
        reason: refusal.kind,
      });
      return;
    }
    try {
      await slack.postEphemeral({ channel: channelId, user, ...renderRefusal(refusal) });
    } catch (error) {
      log.warn('could not tell the person why', { user, error: errorMessage(error) });
    }
  };
}

async function failed(
  { log }: ListenerDeps,
  ack: AckFn<ViewResponseAction> | AckFn<void>,
  report: (reply: DecisionReply) => Promise<void>,
  error: unknown,
): Promise<void> {
  log.error('handling a modal submission failed', { error: errorMessage(error) });
  await ack().catch(() => {});
  await report({ kind: 'refused', refusal: { kind: 'decision_failed' } });
}
