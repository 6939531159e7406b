import type { App } from '@slack/bolt';
import { errorMessage } from '../error-message.js';
import { CALLBACK_IDS } from '../slack/codecs/action-ids.js';
import { delegationErrors, parseDelegationSubmission } from '../slack/render/delegation-view.js';
import type { ListenerDeps } from './deps.js';
import { viewSubmissionSchema } from './payloads.js';

/**
 * The hand-over modal's submission: a form Slack could not give whole, or a hand-over the
 * workflow refuses (to oneself, an end not after the start or past, a loop), is shown in the
 * modal, which stays open; a valid one closes it and the Home shows it.
 */
export function registerDelegationViews(app: App, deps: ListenerDeps): void {
  const { log } = deps;
  app.view(CALLBACK_IDS.handOverModal, async ({ ack, body }) => {
    const parsed = viewSubmissionSchema.safeParse(body);
    if (!parsed.success) {
      log.warn('unreadable modal submission', { callbackId: CALLBACK_IDS.handOverModal });
      await ack({
        response_action: 'errors',
        errors: delegationErrors('delegate', 'This form could not be read: open it again.'),
      });
      return;
    }
    const form = parseDelegationSubmission(parsed.data.view.state.values);
    if (!form.ok) {
      await ack({ response_action: 'errors', errors: form.errors });
      return;
    }
    const { ok: _ok, ...proposal } = form;
    try {
      const result = await deps.delegations.set(parsed.data.user.id, proposal);
      if (result.kind === 'invalid') {
        const { field, message } = result.problem;
        await ack({ response_action: 'errors', errors: delegationErrors(field, message) });
        return;
      }
      await ack();
    } catch (error) {
      log.error('could not set a hand-over', { error: errorMessage(error) });
      await ack({
        response_action: 'errors',
        errors: delegationErrors('delegate', 'The hand-over could not be saved: try again.'),
      });
    }
  });
}
