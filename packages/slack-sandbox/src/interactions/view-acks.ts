import { checkView } from '@adk-slack-approvals/block-kit';
import { inputBlocks } from '../blocks.js';
import { parseJsonObject } from '../http/bodies.js';
import { isJsonObject, type Json } from '../json.js';
import { type SandboxView, viewBlocks } from '../modals.js';
import type { SandboxState } from '../state.js';
import type { Person } from '../workspace.js';

/** Honours `response_action`; an empty ack closes the submitted view. */
export function applyViewAck(
  state: SandboxState,
  person: Person,
  view: SandboxView,
  body: string,
): void {
  if (body.trim() === '') {
    state.modals.close(view);
    return;
  }
  const json = parseJsonObject(body);
  if (!json.ok) {
    view.notice =
      'We had some trouble connecting. Try again? (the app answered with something other than JSON)';
    return;
  }
  const ack = json.value;
  switch (ack.response_action) {
    case undefined:
      state.modals.close(view);
      return;
    case 'clear':
      state.modals.closeAll(person.id);
      return;
    case 'errors':
      showErrors(view, ack.errors);
      return;
    case 'update':
    case 'push': {
      const next = ack.view;
      if (!isJsonObject(next)) {
        view.notice = `response_action "${ack.response_action}" needs a view`;
        return;
      }
      const problems = checkView(next);
      if (problems.length > 0) {
        view.notice = `The app's view was refused: ${problems.join('; ')}`;
        return;
      }
      if (ack.response_action === 'update') state.modals.update(view, next);
      else {
        const pushed = state.modals.push(person.id, next);
        if (!pushed.ok) view.notice = `The app's view could not be pushed: ${pushed.error}`;
      }
      return;
    }
    default:
      view.notice = `Unknown response_action ${JSON.stringify(ack.response_action)}`;
  }
}

function showErrors(view: SandboxView, errors: Json | undefined): void {
  if (!isJsonObject(errors)) {
    view.notice = 'response_action "errors" needs an errors object keyed by block_id';
    return;
  }
  const inputs = new Set(inputBlocks(viewBlocks(view.view)).map((i) => i.blockId));
  const shown: Record<string, string> = {};
  const strays: string[] = [];
  for (const [blockId, message] of Object.entries(errors)) {
    if (inputs.has(blockId) && typeof message === 'string') shown[blockId] = message;
    else strays.push(blockId);
  }
  view.errors = shown;
  // Slack shows nothing for errors keyed by anything but an input block; say so, it is a bug.
  view.notice =
    strays.length > 0
      ? `Errors for blocks that are not input blocks were dropped: ${strays.join(', ')}`
      : undefined;
}
