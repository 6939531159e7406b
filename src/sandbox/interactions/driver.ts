import type { Log } from '../../log.js';
import { checkView } from '../../slack/limits.js';
import { type FoundElement, inputBlocks, interactiveElements, optionsOf } from '../blocks.js';
import { type SandboxMessage, toSlackMessage } from '../conversations.js';
import { parseJsonObject } from '../http/bodies.js';
import { isJsonObject, type Json, type JsonObject } from '../json.js';
import { type SandboxView, toSlackView, viewFlag } from '../modals.js';
import type { ResponseTarget } from '../response-urls.js';
import type { SandboxState } from '../state.js';
import {
  BOT,
  findConversation,
  findPerson,
  isMember,
  type Person,
  SLACKBOT,
} from '../workspace.js';
import { type Delivery, deliverSigned, fieldsForm, payloadForm } from './delivery.js';
import {
  type ActionContainer,
  actionJson,
  blockActionsPayload,
  type Choice,
  choiceShape,
  slashCommandFields,
  viewClosedPayload,
  viewSubmissionPayload,
} from './payloads.js';
import { applyReply, describeFailure } from './replies.js';
import { encodeTypedText } from './typed-text.js';
import { type InputValues, readViewInput } from './view-input.js';

/**
 * What came of an interaction: the app's HTTP answer (its ack), or why there was none: the
 * sandbox refused to send (as a Slack client would), no app is connected, or the app did not
 * answer within Slack's deadline.
 */
export type InteractionResult =
  | { answered: true; status: number; body: string }
  | { answered: false; reason: string };

export interface SlashCommandInput {
  /** Id or handle of the person typing it. */
  user: string;
  /** Id or name of the channel it is typed in. */
  channel: string;
  /** With the slash: `/agent`. */
  command: string;
  text?: string;
}

export interface ClickInput {
  user: string;
  actionId: string;
  /** Needed only when several blocks hold the same action id. */
  blockId?: string;
  /**
   * Buttons: which of several buttons sharing the action id (by their value). Overflow, select
   * and radio buttons: the option value chosen. Checkboxes and multi-selects: the values checked.
   */
  value?: string | readonly string[];
  /** A message (or ephemeral message) in a channel… */
  channel?: string;
  messageTs?: string;
  /** …or an open modal. */
  viewId?: string;
}

export interface SubmitViewInput {
  user: string;
  /** Default: the person's topmost modal. */
  viewId?: string;
  values?: InputValues;
}

export interface CloseViewInput {
  user: string;
  viewId?: string;
}

export interface PostAsPersonInput {
  user: string;
  channel: string;
  text: string;
  threadTs?: string;
}

export interface DriverOptions {
  state: SandboxState;
  signingSecret: string;
  /** The sandbox's origin, for `response_url`s. */
  baseUrl: () => string;
  appEventsUrl: () => string | undefined;
  /** Slack gives up on an app after 3 seconds. */
  ackTimeoutMs: number;
  log: Log;
}

const refused = (reason: string): InteractionResult => ({ answered: false, reason });

/** Acts as the people of the workspace: types slash commands, clicks, submits and closes modals. */
export class InteractionDriver {
  constructor(private readonly options: DriverOptions) {}

  private get state(): SandboxState {
    return this.options.state;
  }

  async slashCommand(input: SlashCommandInput): Promise<InteractionResult> {
    const person = findPerson(input.user);
    if (!person) return refused(`unknown user ${input.user}`);
    const conversation = findConversation(input.channel);
    if (!conversation) return refused(`unknown channel ${input.channel}`);
    if (!isMember(conversation, person.id))
      return refused(`${person.name} is not in ${conversation.name}`);
    const command = input.command.trim();
    if (!/^\/\S+$/.test(command)) return refused(`a command starts with "/": ${command}`);
    const target: ResponseTarget = {
      user: person.id,
      channel: conversation.id,
      threadTs: undefined,
      original: undefined,
    };
    const url = this.options.appEventsUrl();
    if (url === undefined) {
      this.slackbotSays(
        target,
        `${command} is not a valid command. In Slack, all messages that start with the "/" character are interpreted as commands.`,
      );
      return refused('no app events URL is set');
    }
    const text = encodeTypedText(input.text?.trim() ?? '');
    const fields = slashCommandFields({
      person,
      conversation,
      command,
      text,
      triggerId: this.state.triggers.issue(person.id),
      responseUrl: this.responseUrl(target),
    });
    const delivery = await this.deliver(url, fieldsForm(fields));
    if (delivery.kind === 'answered' && delivery.status === 200) {
      this.applyCommandAck(target, person, `${command} ${text}`.trim(), delivery.body);
    } else {
      this.slackbotSays(target, `${command} failed with the error "${commandError(delivery)}"`);
    }
    this.state.changed();
    return result(delivery);
  }

  async clickButton(input: ClickInput): Promise<InteractionResult> {
    const person = findPerson(input.user);
    if (!person) return refused(`unknown user ${input.user}`);
    const located = this.locate(person, input);
    if (!located.ok) return refused(located.reason);
    const picked = pickElement(located.blocks, input);
    if (!picked.ok) return refused(picked.reason);
    const url = this.options.appEventsUrl();
    if (url === undefined) return refused('no app events URL is set');

    const action = actionJson(picked.found, picked.choice, this.state.timestamps.next());
    const stateValues: JsonObject =
      located.container.kind === 'view' ? located.values : choiceState(picked.found, action);
    const payload = blockActionsPayload({
      person,
      triggerId: this.state.triggers.issue(person.id),
      container: located.container,
      responseUrl: located.target === undefined ? undefined : this.responseUrl(located.target),
      action,
      stateValues,
    });
    const delivery = await this.deliver(url, payloadForm(payload));
    if (delivery.kind !== 'answered' || delivery.status !== 200) {
      this.state.notify({
        user: person.id,
        text: `${BOT.realName} did not handle that: ${problemText(delivery, this.options.ackTimeoutMs)}`,
        channel: located.target?.channel,
        messageTs: located.container.kind === 'message' ? located.container.messageTs : undefined,
        viewId: input.viewId,
      });
      this.state.changed();
    }
    return result(delivery);
  }

  async submitView(input: SubmitViewInput): Promise<InteractionResult> {
    const person = findPerson(input.user);
    if (!person) return refused(`unknown user ${input.user}`);
    const view = this.topView(person, input.viewId);
    if (!view.ok) return refused(view.reason);
    const open = view.view;
    if (!isJsonObject(open.view.submit)) return refused('this modal has no submit button');
    const read = readViewInput(blocksOf(open.view), open.values, input.values ?? {});
    if (!read.ok) return refused(read.reason);
    open.values = read.values;
    open.errors = read.errors;
    open.notice = undefined;
    if (Object.keys(read.errors).length > 0) {
      this.state.changed();
      const listed = Object.entries(read.errors).map(([block, error]) => `${block}: ${error}`);
      return refused(`the Slack client shows errors and sends nothing (${listed.join('; ')})`);
    }
    const url = this.options.appEventsUrl();
    if (url === undefined) return refused('no app events URL is set');
    const payload = viewSubmissionPayload({
      person,
      triggerId: this.state.triggers.issue(person.id),
      view: toSlackView(open),
    });
    const delivery = await this.deliver(url, payloadForm(payload));
    if (delivery.kind === 'answered' && delivery.status === 200) {
      this.applyViewAck(person, open, delivery.body);
    } else {
      open.notice = 'We had some trouble connecting. Try again?';
      this.options.log.warn('view submission not acknowledged', {
        detail: problemText(delivery, this.options.ackTimeoutMs),
      });
    }
    this.state.changed();
    return result(delivery);
  }

  async closeView(input: CloseViewInput): Promise<InteractionResult> {
    const person = findPerson(input.user);
    if (!person) return refused(`unknown user ${input.user}`);
    const view = this.topView(person, input.viewId);
    if (!view.ok) return refused(view.reason);
    const closing = view.view;
    const cleared = viewFlag(closing, 'clear_on_close');
    const slackView = toSlackView(closing);
    if (cleared) this.state.modals.closeAll(person.id);
    else this.state.modals.close(closing);
    this.state.changed();
    if (!viewFlag(closing, 'notify_on_close')) {
      return refused('closed; the view has no notify_on_close, so Slack tells the app nothing');
    }
    const url = this.options.appEventsUrl();
    if (url === undefined) return refused('closed; no app events URL is set');
    const payload = viewClosedPayload({ person, view: slackView, isCleared: cleared });
    return result(await this.deliver(url, payloadForm(payload)));
  }

  /** A person posts a plain message (the app hears nothing: the sandbox sends no Events API events). */
  postAsPerson(
    input: PostAsPersonInput,
  ): { ok: true; message: SandboxMessage } | { ok: false; reason: string } {
    const person = findPerson(input.user);
    if (!person) return { ok: false, reason: `unknown user ${input.user}` };
    const conversation = findConversation(input.channel);
    if (!conversation) return { ok: false, reason: `unknown channel ${input.channel}` };
    if (!isMember(conversation, person.id)) {
      return { ok: false, reason: `${person.name} is not in ${conversation.name}` };
    }
    if (input.text.trim() === '') return { ok: false, reason: 'empty message' };
    const message = this.state.conversations.post({
      channel: conversation.id,
      user: person.id,
      text: encodeTypedText(input.text),
      blocks: [],
      threadTs: input.threadTs,
    });
    this.state.changed();
    return { ok: true, message };
  }

  /** "Dismiss message" under an ephemeral. */
  dismissEphemeral(input: { user: string; ts: string }): boolean {
    const person = findPerson(input.user);
    const ephemeral = person
      ? this.state.conversations.findEphemeral(person.id, input.ts)
      : undefined;
    if (!ephemeral) return false;
    this.state.conversations.removeEphemeral(ephemeral);
    this.state.changed();
    return true;
  }

  private deliver(url: string, body: string): Promise<Delivery> {
    return deliverSigned({
      url,
      signingSecret: this.options.signingSecret,
      body,
      timeoutMs: this.options.ackTimeoutMs,
      nowSec: Math.floor(this.state.nowMs() / 1000),
    });
  }

  private responseUrl(target: ResponseTarget): string {
    return `${this.options.baseUrl()}/response/${this.state.responseUrls.issue(target)}`;
  }

  private slackbotSays(target: ResponseTarget, text: string): void {
    this.state.conversations.postEphemeral({
      channel: target.channel,
      user: target.user,
      from: SLACKBOT.id,
      text,
      blocks: [],
      threadTs: undefined,
    });
    this.state.changed();
  }

  /** A slash command's ack body is an immediate reply: ephemeral unless `response_type: 'in_channel'`. */
  private applyCommandAck(
    target: ResponseTarget,
    person: Person,
    typed: string,
    body: string,
  ): void {
    if (body.trim() === '') return;
    const json = parseJsonObject(body);
    const reply: JsonObject = json.ok ? json.value : { text: body };
    if (reply.text === undefined && reply.blocks === undefined) return;
    if (reply.response_type === 'in_channel') {
      // Slack shows the command itself above an in-channel reply.
      this.state.conversations.post({
        channel: target.channel,
        user: person.id,
        text: typed,
        blocks: [],
      });
    }
    const { replace_original: _r, delete_original: _d, ...content } = reply;
    const outcome = applyReply(this.state, target, content);
    if (!outcome.ok) {
      this.slackbotSays(
        target,
        `${typed.split(' ')[0]} failed with the error "${describeFailure(outcome.result)}"`,
      );
    }
  }

  /** Honours `response_action`; an empty ack closes the submitted view. */
  private applyViewAck(person: Person, view: SandboxView, body: string): void {
    if (body.trim() === '') {
      this.state.modals.close(view);
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
        this.state.modals.close(view);
        return;
      case 'clear':
        this.state.modals.closeAll(person.id);
        return;
      case 'errors':
        this.showErrors(view, ack.errors);
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
        if (ack.response_action === 'update') this.state.modals.update(view, next);
        else {
          const pushed = this.state.modals.push(person.id, next);
          if (!pushed.ok) view.notice = `The app's view could not be pushed: ${pushed.error}`;
        }
        return;
      }
      default:
        view.notice = `Unknown response_action ${JSON.stringify(ack.response_action)}`;
    }
  }

  private showErrors(view: SandboxView, errors: Json | undefined): void {
    if (!isJsonObject(errors)) {
      view.notice = 'response_action "errors" needs an errors object keyed by block_id';
      return;
    }
    const inputs = new Set(inputBlocks(blocksOf(view.view)).map((i) => i.blockId));
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

  private topView(
    person: Person,
    viewId: string | undefined,
  ): { ok: true; view: SandboxView } | { ok: false; reason: string } {
    const stack = this.state.modals.stack(person.id);
    const top = stack.at(-1);
    if (!top) return { ok: false, reason: `${person.name} has no modal open` };
    if (viewId !== undefined && top.id !== viewId) {
      return { ok: false, reason: `view ${viewId} is not ${person.name}'s topmost modal` };
    }
    return { ok: true, view: top };
  }

  private locate(person: Person, input: ClickInput): Located {
    if (input.viewId !== undefined) {
      const view = this.state.modals.byId(input.viewId);
      if (!view || view.user !== person.id)
        return { ok: false, reason: `${person.name} has no view ${input.viewId}` };
      return {
        ok: true,
        blocks: blocksOf(view.view),
        container: { kind: 'view', view: toSlackView(view) },
        values: view.values,
        target: undefined,
      };
    }
    const conversation = findConversation(input.channel ?? '');
    if (!conversation) return { ok: false, reason: `unknown channel ${input.channel ?? '(none)'}` };
    const ts = input.messageTs ?? '';
    const message = this.state.conversations.find(conversation.id, ts);
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
    const ephemeral = this.state.conversations.findEphemeral(person.id, ts);
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
}

type Located =
  | {
      ok: true;
      blocks: Json[];
      container: ActionContainer;
      values: JsonObject;
      target: ResponseTarget | undefined;
    }
  | { ok: false; reason: string };

function pickElement(
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
function choiceState(found: FoundElement, action: JsonObject): JsonObject {
  if (found.element.type === 'button' || found.element.type === 'overflow') return {};
  const value: JsonObject = { type: found.element.type };
  if (action.selected_option !== undefined) value.selected_option = action.selected_option;
  if (action.selected_options !== undefined) value.selected_options = action.selected_options;
  return { [found.blockId]: { [found.element.action_id]: value } };
}

function blocksOf(view: JsonObject): Json[] {
  return Array.isArray(view.blocks) ? view.blocks : [];
}

function result(delivery: Delivery): InteractionResult {
  switch (delivery.kind) {
    case 'answered':
      return { answered: true, status: delivery.status, body: delivery.body };
    case 'timeout':
      return { answered: false, reason: 'timeout: the app did not answer within the ack deadline' };
    case 'unreachable':
      return { answered: false, reason: `unreachable: ${delivery.detail}` };
  }
}

/** The error Slack names when a slash command's request fails. */
function commandError(delivery: Delivery): string {
  switch (delivery.kind) {
    case 'answered':
      return delivery.status >= 500 ? 'http_service_error' : 'http_client_error';
    case 'timeout':
      return 'operation_timeout';
    case 'unreachable':
      return 'dispatch_failed';
  }
}

function problemText(delivery: Delivery, deadlineMs: number): string {
  switch (delivery.kind) {
    case 'answered':
      return `it answered HTTP ${delivery.status}`;
    case 'timeout':
      return `it did not answer within ${deadlineMs} ms`;
    case 'unreachable':
      return `it could not be reached (${delivery.detail})`;
  }
}
