import { type FoundElement, interactiveElements, optionsOf } from '../blocks.js';
import { toSlackMessage } from '../conversations.js';
import type { Json, JsonObject } from '../json.js';
import { toSlackView, viewBlocks } from '../modals.js';
import type { ResponseTarget } from '../response-urls.js';
import type { SandboxState } from '../state.js';
import { findConversation, isMember, type Person } from '../workspace.js';
import type { ClickInput } from './inputs.js';
import { type ActionContainer, type Choice, choiceShape } from './payloads.js';

/** What a click names: the message, ephemeral or modal it happens in, and the element clicked. */

/** Finds the message, ephemeral, modal or Home tab a person clicks in, if they can see it. */
export function locateClick(state: SandboxState, person: Person, input: ClickInput): Located {
  if (input.viewId !== undefined) {
    const view = state.modals.byId(input.viewId) ?? state.homes.byId(input.viewId);
    if (!view || view.user !== person.id)
      return { ok: false, reason: `${person.name} has no view ${input.viewId}` };
    return {
      ok: true,
      blocks: viewBlocks(view.view),
      container: { kind: 'view', view: toSlackView(view) },
      values: view.values,
      target: undefined,
    };
  }
  const conversation = findConversation(input.channel ?? '');
  if (!conversation) return { ok: false, reason: `unknown channel ${input.channel ?? '(none)'}` };
  const ts = input.messageTs ?? '';
  const message = state.conversations.find(conversation.id, ts);
  if (message && !message.deleted) {
    if (!isMember(conversation, person.id)) {
      return { ok: false, reason: `${person.name} is not in ${conversation.name}` };
    }
    const threadTs =
      message.threadTs !== undefined && message.threadTs !== message.ts
        ? message.threadTs
        : undefined;
    return {
      ok: true,
      blocks: message.blocks,
      container: {
        kind: 'message',
        conversation,
        messageTs: ts,
        threadTs,
        message: toSlackMessage(message),
      },
      values: {},
      target: {
        user: person.id,
        channel: conversation.id,
        threadTs,
        original: { kind: 'message', ts },
      },
    };
  }
  const ephemeral = state.conversations.findEphemeral(person.id, ts);
  if (ephemeral && ephemeral.channel === conversation.id) {
    return {
      ok: true,
      blocks: ephemeral.blocks,
      container: {
        kind: 'message',
        conversation,
        messageTs: ts,
        threadTs: ephemeral.threadTs,
        message: undefined,
      },
      values: {},
      target: {
        user: person.id,
        channel: conversation.id,
        threadTs: ephemeral.threadTs,
        original: { kind: 'ephemeral', ts },
      },
    };
  }
  return {
    ok: false,
    reason: `no message ${ts} that ${person.name} can see in ${conversation.name}`,
  };
}

export type Located =
  | {
      ok: true;
      blocks: Json[];
      container: ActionContainer;
      values: JsonObject;
      target: ResponseTarget | undefined;
    }
  | { ok: false; reason: string };

export function pickElement(
  blocks: readonly Json[],
  input: ClickInput,
): { ok: true; found: FoundElement; choice: Choice } | { ok: false; reason: string } {
  const candidates = interactiveElements(blocks).filter(
    (f) =>
      f.element.action_id === input.actionId &&
      (input.blockId === undefined || f.blockId === input.blockId),
  );
  const value = input.value;
  const found =
    candidates.find(
      (f) => f.element.type !== 'button' || value === undefined || f.element.value === value,
    ) ?? undefined;
  if (!found) {
    const where = input.blockId === undefined ? '' : ` in block ${input.blockId}`;
    const which = value === undefined || Array.isArray(value) ? '' : ` with value ${String(value)}`;
    return { ok: false, reason: `no element with action_id ${input.actionId}${where}${which}` };
  }
  const shape = choiceShape(found.element);
  if (shape === 'none') return { ok: true, found, choice: { kind: 'none' } };
  const options = optionsOf(found.element);
  const wanted = value === undefined ? [] : typeof value === 'string' ? [value] : [...value];
  const chosen = options.filter((o) => wanted.includes(o.value));
  if (chosen.length !== wanted.length || (shape === 'one' && chosen.length !== 1)) {
    return {
      ok: false,
      reason: `choose ${shape === 'one' ? 'one option' : 'options'} of ${input.actionId} by value`,
    };
  }
  const [first] = chosen;
  if (shape === 'one' && first) return { ok: true, found, choice: { kind: 'one', option: first } };
  return { ok: true, found, choice: { kind: 'many', options: chosen } };
}

/** `state.values` of a message click: the chosen option of the element clicked, if it holds one. */
export function choiceState(found: FoundElement, action: JsonObject): JsonObject {
  if (found.element.type === 'button' || found.element.type === 'overflow') return {};
  const value: JsonObject = { type: found.element.type };
  if (action.selected_option !== undefined) value.selected_option = action.selected_option;
  if (action.selected_options !== undefined) value.selected_options = action.selected_options;
  return { [found.blockId]: { [found.element.action_id]: value } };
}
