import type { BlockElement, BlockOption, FoundElement } from '../blocks.js';
import type { JsonObject } from '../json.js';
import { BOT, type Conversation, type Person, TEAM } from '../workspace.js';

/**
 * The payloads Slack sends an app, in Slack's shapes (Bolt's `BlockAction`, `ViewSubmitAction`,
 * `ViewClosedAction`, `SlashCommand`). Pure: the driver supplies ids, URLs and the view JSON.
 */

/** The legacy verification token every payload carries; Bolt ignores it and checks signatures. */
export const VERIFICATION_TOKEN = 'sandboxVerificationTokenOnly';

const team = (): JsonObject => ({ id: TEAM.id, domain: TEAM.domain });

const user = (person: Person): JsonObject => ({
  id: person.id,
  username: person.name,
  name: person.name,
  team_id: TEAM.id,
});

function textJson(text: { type: string; text: string; emoji?: boolean | undefined }): JsonObject {
  return text.emoji === undefined
    ? { type: text.type, text: text.text }
    : { type: text.type, text: text.text, emoji: text.emoji };
}

export function optionJson(option: BlockOption): JsonObject {
  const json: JsonObject = { text: textJson(option.text), value: option.value };
  if (option.description) json.description = textJson(option.description);
  return json;
}

export type Choice =
  | { kind: 'none' }
  | { kind: 'one'; option: BlockOption }
  | { kind: 'many'; options: BlockOption[] };

/** One entry of `actions[]` for a click on a button, or a choice in an overflow, select, checkboxes or radio group. */
export function actionJson(found: FoundElement, choice: Choice, actionTs: string): JsonObject {
  const { element, blockId } = found;
  const action: JsonObject = {
    type: element.type,
    action_id: element.action_id,
    block_id: blockId,
  };
  if (element.type === 'button') {
    if (element.text) action.text = textJson(element.text);
    if (element.value !== undefined) action.value = element.value;
    if (element.style !== undefined) action.style = element.style;
    if (element.url !== undefined) action.url = element.url;
  } else if (choice.kind === 'one') {
    action.selected_option = optionJson(choice.option);
  } else if (choice.kind === 'many') {
    action.selected_options = choice.options.map(optionJson);
  }
  if (element.placeholder) action.placeholder = textJson(element.placeholder);
  action.action_ts = actionTs;
  return action;
}

/** How an element reports its choice: one option, several, or none (a button). */
export function choiceShape(element: BlockElement): 'none' | 'one' | 'many' {
  switch (element.type) {
    case 'overflow':
    case 'static_select':
    case 'radio_buttons':
      return 'one';
    case 'checkboxes':
    case 'multi_static_select':
      return 'many';
    default:
      return 'none';
  }
}

interface Common {
  person: Person;
  triggerId: string;
}

export type ActionContainer =
  | {
      kind: 'message';
      conversation: Conversation;
      messageTs: string;
      threadTs: string | undefined;
      /** The full message; Slack leaves it out for ephemeral messages. */
      message: JsonObject | undefined;
    }
  | { kind: 'view'; view: JsonObject };

export function blockActionsPayload(
  input: Common & {
    container: ActionContainer;
    responseUrl: string | undefined;
    action: JsonObject;
    stateValues: JsonObject;
  },
): JsonObject {
  const payload: JsonObject = {
    type: 'block_actions',
    user: user(input.person),
    api_app_id: BOT.appId,
    token: VERIFICATION_TOKEN,
    container: {},
    trigger_id: input.triggerId,
    team: team(),
    enterprise: null,
    is_enterprise_install: false,
  };
  const c = input.container;
  if (c.kind === 'message') {
    const container: JsonObject = {
      type: 'message',
      message_ts: c.messageTs,
      channel_id: c.conversation.id,
      is_ephemeral: c.message === undefined,
    };
    if (c.threadTs !== undefined) container.thread_ts = c.threadTs;
    payload.container = container;
    payload.channel = { id: c.conversation.id, name: channelName(c.conversation) };
    if (c.message) payload.message = c.message;
  } else {
    payload.container = { type: 'view', view_id: String(c.view.id) };
    payload.view = c.view;
  }
  payload.state = { values: input.stateValues };
  if (input.responseUrl !== undefined) payload.response_url = input.responseUrl;
  payload.actions = [input.action];
  return payload;
}

export function viewSubmissionPayload(input: Common & { view: JsonObject }): JsonObject {
  return {
    type: 'view_submission',
    team: team(),
    user: user(input.person),
    api_app_id: BOT.appId,
    token: VERIFICATION_TOKEN,
    trigger_id: input.triggerId,
    view: input.view,
    response_urls: [],
    enterprise: null,
    is_enterprise_install: false,
  };
}

export function viewClosedPayload(input: {
  person: Person;
  view: JsonObject;
  isCleared: boolean;
}): JsonObject {
  return {
    type: 'view_closed',
    team: team(),
    user: user(input.person),
    api_app_id: BOT.appId,
    token: VERIFICATION_TOKEN,
    view: input.view,
    is_cleared: input.isCleared,
    enterprise: null,
    is_enterprise_install: false,
  };
}

/** Slash commands are flat form fields, not a JSON payload. */
export function slashCommandFields(
  input: Common & {
    conversation: Conversation;
    command: string;
    text: string;
    responseUrl: string;
  },
): Record<string, string> {
  return {
    token: VERIFICATION_TOKEN,
    team_id: TEAM.id,
    team_domain: TEAM.domain,
    channel_id: input.conversation.id,
    channel_name: channelName(input.conversation),
    user_id: input.person.id,
    user_name: input.person.name,
    command: input.command,
    text: input.text,
    api_app_id: BOT.appId,
    is_enterprise_install: 'false',
    response_url: input.responseUrl,
    trigger_id: input.triggerId,
  };
}

function channelName(conversation: Conversation): string {
  return conversation.kind === 'channel' ? conversation.channel.name : 'directmessage';
}
