import { randomBytes } from 'node:crypto';
import { inputBlocks, withGeneratedIds } from './blocks.js';
import { isJsonObject, type Json, type JsonObject } from './json.js';
import { slackId } from './timestamps.js';
import { BOT, TEAM } from './workspace.js';

/** An open modal view. Each person has a stack of at most three (open, then push twice). */
export interface SandboxView {
  id: string;
  user: string;
  /** The view as the app sent it, with the block and action ids Slack fills in. */
  view: JsonObject;
  /** Changes with every update; `views.update` with an older one is a `hash_conflict`. */
  hash: string;
  externalId: string | undefined;
  rootViewId: string;
  previousViewId: string | undefined;
  /** `state.values`: what the person entered, by block id then action id. */
  values: JsonObject;
  /** Errors shown under input blocks, by block id (`response_action: 'errors'` or the client's own checks). */
  errors: Record<string, string>;
  /** A problem the Slack client would show at the top of the modal (the app failed to answer). */
  notice: string | undefined;
}

/** Slack lets an app push two views on top of the one it opened. */
export const VIEW_STACK_LIMIT = 3;

export type PushResult =
  | { ok: true; view: SandboxView }
  | { ok: false; error: 'push_limit_reached' | 'not_found' };

export class Modals {
  private readonly stacks = new Map<string, SandboxView[]>();

  constructor(private readonly nowMs: () => number = Date.now) {}

  /** A new modal for the person; whatever was open is replaced. */
  open(user: string, view: JsonObject): SandboxView {
    const opened = this.create(user, view, undefined, undefined);
    this.stacks.set(user, [opened]);
    return opened;
  }

  push(user: string, view: JsonObject): PushResult {
    const stack = this.stacks.get(user);
    const top = stack?.at(-1);
    if (!stack || !top) return { ok: false, error: 'not_found' };
    if (stack.length >= VIEW_STACK_LIMIT) return { ok: false, error: 'push_limit_reached' };
    const pushed = this.create(user, view, top.rootViewId, top.id);
    stack.push(pushed);
    return { ok: true, view: pushed };
  }

  /** Replaces a view's content; input values survive where the block and action ids still match. */
  update(target: SandboxView, view: JsonObject): void {
    target.view = prepared(view);
    target.hash = this.newHash();
    target.externalId = externalIdOf(view) ?? target.externalId;
    target.values = keptValues(target.values, target.view);
    target.errors = {};
    target.notice = undefined;
  }

  byId(viewId: string): SandboxView | undefined {
    for (const stack of this.stacks.values()) {
      const found = stack.find((v) => v.id === viewId);
      if (found) return found;
    }
    return undefined;
  }

  byExternalId(externalId: string): SandboxView | undefined {
    for (const stack of this.stacks.values()) {
      const found = stack.find((v) => v.externalId === externalId);
      if (found) return found;
    }
    return undefined;
  }

  stack(user: string): SandboxView[] {
    return this.stacks.get(user) ?? [];
  }

  /** Closes a view and every view pushed above it. */
  close(view: SandboxView): void {
    const stack = this.stacks.get(view.user) ?? [];
    const index = stack.indexOf(view);
    if (index >= 0) stack.splice(index);
    if (stack.length === 0) this.stacks.delete(view.user);
  }

  closeAll(user: string): void {
    this.stacks.delete(user);
  }

  clear(): void {
    this.stacks.clear();
  }

  private create(
    user: string,
    view: JsonObject,
    rootViewId: string | undefined,
    previousViewId: string | undefined,
  ): SandboxView {
    const id = slackId('V');
    return {
      id,
      user,
      view: prepared(view),
      hash: this.newHash(),
      externalId: externalIdOf(view),
      rootViewId: rootViewId ?? id,
      previousViewId,
      values: {},
      errors: {},
      notice: undefined,
    };
  }

  private newHash(): string {
    return `${Math.floor(this.nowMs() / 1000)}.${randomBytes(6).toString('base64url')}`;
  }
}

/** A view as stored: a copy, with the block and action ids Slack fills in. */
export function prepared(view: JsonObject): JsonObject {
  const copy = structuredClone(view);
  if (Array.isArray(copy.blocks)) copy.blocks = withGeneratedIds(copy.blocks);
  return copy;
}

function externalIdOf(view: JsonObject): string | undefined {
  return typeof view.external_id === 'string' && view.external_id !== ''
    ? view.external_id
    : undefined;
}

/** A view's blocks, or none when it has no `blocks` array. */
export function viewBlocks(view: JsonObject): Json[] {
  return Array.isArray(view.blocks) ? view.blocks : [];
}

function keptValues(values: JsonObject, view: JsonObject): JsonObject {
  const kept: JsonObject = {};
  for (const input of inputBlocks(viewBlocks(view))) {
    const byAction = values[input.blockId];
    const value = isJsonObject(byAction) ? byAction[input.element.action_id] : undefined;
    if (value !== undefined) kept[input.blockId] = { [input.element.action_id]: value };
  }
  return kept;
}

const text = (value: Json | undefined, fallback: Json) => (value === undefined ? fallback : value);

/** A view in Slack's JSON shape (`views.*` responses, `view_submission` payloads). */
export function toSlackView(view: SandboxView): JsonObject {
  const v = view.view;
  return {
    id: view.id,
    team_id: TEAM.id,
    type: text(v.type, 'modal'),
    blocks: viewBlocks(v),
    private_metadata: text(v.private_metadata, ''),
    callback_id: text(v.callback_id, ''),
    state: { values: view.values },
    hash: view.hash,
    title: text(v.title, null),
    clear_on_close: text(v.clear_on_close, false),
    notify_on_close: text(v.notify_on_close, false),
    close: text(v.close, null),
    submit: text(v.submit, null),
    previous_view_id: view.previousViewId ?? null,
    root_view_id: view.rootViewId,
    app_id: BOT.appId,
    external_id: view.externalId ?? '',
    app_installed_team_id: TEAM.id,
    bot_id: BOT.botId,
  };
}

export function viewFlag(view: SandboxView, flag: 'clear_on_close' | 'notify_on_close'): boolean {
  return view.view[flag] === true;
}
