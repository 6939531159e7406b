import type { SandboxMessage } from '../conversations.js';
import type { SocketLink } from '../events/event-delivery.js';
import {
  appHomeOpenedEvent,
  appMentionEvent,
  mentionsBot,
  messageEvent,
} from '../events/event-payloads.js';
import type { SocketEnvelopeType } from '../events/socket-mode.js';
import { parseJsonObject } from '../http/bodies.js';
import { isJsonObject, type JsonObject } from '../json.js';
import type { Log } from '../log.js';
import { type SandboxView, toSlackView, viewBlocks, viewFlag } from '../modals.js';
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
import { choiceState, locateClick, pickElement } from './click-target.js';
import { type Delivery, deliverSigned, fieldsForm, payloadForm } from './delivery.js';
import type {
  ClickInput,
  CloseViewInput,
  InteractionResult,
  PostAsPersonInput,
  SlashCommandInput,
  SubmitViewInput,
} from './inputs.js';
import { commandError, outcomeOf, problemText } from './outcomes.js';
import {
  actionJson,
  blockActionsPayload,
  slashCommandFields,
  viewClosedPayload,
  viewSubmissionPayload,
} from './payloads.js';
import { applyReply, describeFailure } from './replies.js';
import { encodeTypedText, escapeControlCharacters } from './typed-text.js';
import { applyViewAck } from './view-acks.js';
import { readViewInput } from './view-input.js';

export interface DriverOptions {
  state: SandboxState;
  signingSecret: string;
  /** The sandbox's origin, for `response_url`s. */
  baseUrl: () => string;
  appEventsUrl: () => string | undefined;
  /** The app's Socket Mode connection: used instead of the URL while connected. */
  socket: SocketLink;
  /** Slack gives up on an app after 3 seconds. */
  ackTimeoutMs: number;
  /** The command's `should_escape` in the app's manifest: mentions and links as `<…>` ids. */
  escapeCommandText: boolean;
  log: Log;
}

type AppTarget = { kind: 'socket' } | { kind: 'http'; url: string };

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
    const app = this.appTarget();
    if (app === undefined) {
      this.slackbotSays(
        target,
        `${command} is not a valid command. In Slack, all messages that start with the "/" character are interpreted as commands.`,
      );
      return refused('no app events URL is set');
    }
    const typed = input.text?.trim() ?? '';
    const text = this.options.escapeCommandText
      ? encodeTypedText(typed)
      : escapeControlCharacters(typed);
    const fields = slashCommandFields({
      person,
      conversation,
      command,
      text,
      triggerId: this.state.triggers.issue(person.id),
      responseUrl: this.responseUrl(target),
    });
    const delivery = await this.deliver(app, 'slash_commands', fields, fieldsForm(fields));
    if (delivery.kind === 'answered' && delivery.status === 200) {
      this.applyCommandAck(target, person, `${command} ${text}`.trim(), delivery.body);
    } else {
      this.slackbotSays(target, `${command} failed with the error "${commandError(delivery)}"`);
    }
    this.state.changed();
    return outcomeOf(delivery);
  }

  async clickButton(input: ClickInput): Promise<InteractionResult> {
    const person = findPerson(input.user);
    if (!person) return refused(`unknown user ${input.user}`);
    const located = locateClick(this.state, person, input);
    if (!located.ok) return refused(located.reason);
    const picked = pickElement(located.blocks, input);
    if (!picked.ok) return refused(picked.reason);
    const app = this.appTarget();
    if (app === undefined) return refused('no app events URL is set');

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
    const delivery = await this.deliver(app, 'interactive', payload, payloadForm(payload));
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
    return outcomeOf(delivery);
  }

  async submitView(input: SubmitViewInput): Promise<InteractionResult> {
    const person = findPerson(input.user);
    if (!person) return refused(`unknown user ${input.user}`);
    const view = this.topView(person, input.viewId);
    if (!view.ok) return refused(view.reason);
    const open = view.view;
    if (!isJsonObject(open.view.submit)) return refused('this modal has no submit button');
    const read = readViewInput(viewBlocks(open.view), open.values, input.values ?? {});
    if (!read.ok) return refused(read.reason);
    open.values = read.values;
    open.errors = read.errors;
    open.notice = undefined;
    if (Object.keys(read.errors).length > 0) {
      this.state.changed();
      const listed = Object.entries(read.errors).map(([block, error]) => `${block}: ${error}`);
      return refused(`the Slack client shows errors and sends nothing (${listed.join('; ')})`);
    }
    const app = this.appTarget();
    if (app === undefined) return refused('no app events URL is set');
    const payload = viewSubmissionPayload({
      person,
      triggerId: this.state.triggers.issue(person.id),
      view: toSlackView(open),
    });
    const delivery = await this.deliver(app, 'interactive', payload, payloadForm(payload));
    if (delivery.kind === 'answered' && delivery.status === 200) {
      applyViewAck(this.state, person, open, delivery.body);
    } else {
      open.notice = 'We had some trouble connecting. Try again?';
      this.options.log.warn('view submission not acknowledged', {
        detail: problemText(delivery, this.options.ackTimeoutMs),
      });
    }
    this.state.changed();
    return outcomeOf(delivery);
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
    const app = this.appTarget();
    if (app === undefined) return refused('closed; no app events URL is set');
    const payload = viewClosedPayload({ person, view: slackView, isCleared: cleared });
    return outcomeOf(await this.deliver(app, 'interactive', payload, payloadForm(payload)));
  }

  /**
   * A person posts a plain message, at the top or in a thread. The app hears of it as Slack tells
   * it: a `message` event, and an `app_mention` too when the text mentions the bot.
   */
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
    this.state.events.emit(messageEvent(message, conversation));
    if (conversation.kind === 'channel' && mentionsBot(message.text)) {
      this.state.events.emit(appMentionEvent(message));
    }
    return { ok: true, message };
  }

  /** A person opens the app's Home tab: the app hears `app_home_opened` (and may publish). */
  openAppHome(user: string): { ok: true } | { ok: false; reason: string } {
    const person = findPerson(user);
    if (!person) return { ok: false, reason: `unknown user ${user}` };
    const eventTs = (Date.now() / 1000).toFixed(6);
    this.state.events.emit(appHomeOpenedEvent(person, this.state.homes.of(person.id), eventTs));
    return { ok: true };
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

  /** Where the app listens: its Socket Mode connection when it has one, else its request URL. */
  private appTarget(): AppTarget | undefined {
    if (this.options.socket.connected()) return { kind: 'socket' };
    const url = this.options.appEventsUrl();
    return url === undefined ? undefined : { kind: 'http', url };
  }

  private deliver(
    app: AppTarget,
    type: SocketEnvelopeType,
    payload: JsonObject,
    body: string,
  ): Promise<Delivery> {
    if (app.kind === 'socket') return this.options.socket.send(type, payload);
    return deliverSigned({
      url: app.url,
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
}
