import type { App, ViewResponseAction } from '@slack/bolt';
import type { BatchPick } from '../approvals/outcomes.js';
import { correlationId } from '../correlation.js';
import { errorMessage } from '../error-message.js';
import { CALLBACK_IDS } from '../slack/codecs/action-ids.js';
import type { Modal } from '../slack/codecs/block-kit.js';
import {
  BATCH_MAX,
  batchKey,
  GATES_BLOCK_ID,
  parseBatchMetadata,
  parseBatchSelect,
  pickProblems,
  renderBatchConfirmModal,
} from '../slack/render/batch-modal.js';
import {
  batchSummary,
  renderBatchProgressModal,
  renderBatchRefusedModal,
  renderBatchResultModal,
} from '../slack/render/batch-result.js';
import { REASON_BLOCK_ID } from '../slack/render/modals.js';
import type { ListenerDeps } from './deps.js';
import { viewSubmissionSchema } from './payloads.js';

/**
 * The App Home's batch: step 1 (pick) is checked against the calls still waiting for the person
 * and the policy in force, with mistakes shown in the modal; step 2 (confirm) decides and then
 * shows, in the same modal, what became of each picked call. Nothing picked is dropped unsaid.
 */
export function registerBatchViews(app: App, deps: ListenerDeps): void {
  const { workflow, log } = deps;

  app.view(CALLBACK_IDS.batchSelect, async ({ ack, body }) => {
    const parsed = viewSubmissionSchema.safeParse(body);
    if (!parsed.success) {
      log.warn('unreadable modal submission', { callbackId: CALLBACK_IDS.batchSelect });
      await ack(update(renderBatchRefusedModal('This form could not be read.')));
      return;
    }
    const selection = parseBatchSelect(parsed.data.view.state.values);
    if (!selection.ok) {
      await ack(errors(selection.errors));
      return;
    }
    // Every call still waiting, batchable or not: one whose rule now says `batch: false` is named.
    const waiting = await deps.homes.decidableBy(parsed.data.user.id);
    const picked = waiting.filter((gate) => selection.keys.includes(batchKey(gate)));
    if (picked.length < selection.keys.length) {
      const gone = selection.keys.length - picked.length;
      await ack(
        errors({
          [GATES_BLOCK_ID]: `${gone} of the picked calls no longer wait for you: pick again.`,
        }),
      );
      return;
    }
    const problems = pickProblems(selection, picked);
    if (Object.keys(problems).length > 0) {
      await ack(errors(problems));
      return;
    }
    const view = renderBatchConfirmModal({
      choice: selection.choice,
      reason: selection.reason,
      gates: picked,
    });
    if (view === undefined) {
      await ack(errors({ [REASON_BLOCK_ID]: 'Shorten the reason, or pick fewer calls.' }));
      return;
    }
    await ack(update(view));
  });

  app.view(CALLBACK_IDS.batchConfirm, async ({ ack, body }) => {
    const parsed = viewSubmissionSchema.safeParse(body);
    const metadata = parsed.success
      ? parseBatchMetadata(parsed.data.view.private_metadata)
      : undefined;
    if (!parsed.success || metadata === undefined) {
      log.warn('unreadable modal submission', { callbackId: CALLBACK_IDS.batchConfirm });
      await ack(update(renderBatchRefusedModal('This batch could not be read.')));
      return;
    }
    const { refs } = metadata;
    if (refs.length > BATCH_MAX) {
      await ack(
        update(
          renderBatchRefusedModal(
            `This batch holds ${refs.length} calls; one takes at most ${BATCH_MAX}. Pick again.`,
          ),
        ),
      );
      return;
    }
    const voter = parsed.data.user.id;
    await ack(update(renderBatchProgressModal(refs.length)));
    let picks: BatchPick[];
    try {
      picks = await workflow.voteBatch(
        {
          pauseId: '',
          voter,
          choice: metadata.choice,
          ...(metadata.reason === undefined ? {} : { reason: metadata.reason }),
        },
        refs,
      );
    } catch (error) {
      log.error('deciding a batch failed', { error: errorMessage(error) });
      const refusal = { kind: 'decision_failed', reference: correlationId() } as const;
      picks = refs.map(([pauseId, callId]) => ({
        pauseId,
        callId,
        outcome: { kind: 'refused', refusal },
      }));
    }
    const viewId = parsed.data.view.id;
    try {
      if (viewId === undefined) throw new Error('the submission named no view id');
      await deps.slack.updateView({ viewId, view: renderBatchResultModal(picks) });
    } catch (error) {
      // The person closed the modal meanwhile: their Home says it instead.
      log.warn('could not show a batch’s result in its modal', { error: errorMessage(error) });
      deps.homes.refresh(voter, batchSummary(picks));
    }
  });
}

function errors(byBlock: Record<string, string>): ViewResponseAction {
  return { response_action: 'errors', errors: byBlock };
}

function update(view: Modal): ViewResponseAction {
  return { response_action: 'update', view };
}
