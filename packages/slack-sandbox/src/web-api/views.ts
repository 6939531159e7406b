import { checkView, VIEW_TOO_LARGE } from '@adk-slack-approvals/block-kit';
import { isJsonObject, type JsonObject } from '../json.js';
import { toSlackView } from '../modals.js';
import { findPerson } from '../workspace.js';
import { type Arguments, jsonArg, stringArg } from './arguments.js';
import type { WebApiContext } from './context.js';
import { failure, type MethodResult } from './results.js';

/** `views.*`: modals opened with a trigger id, pushed, and updated by id or external id; Home tabs published. */

export function open(args: Arguments, { state }: WebApiContext): MethodResult {
  const read = readView(args);
  if (!read.ok) return read.result;
  const triggerId = stringArg(args, 'trigger_id');
  if (triggerId === undefined) return invalidArguments(['missing required field: trigger_id']);
  const externalId = stringArg(read.view, 'external_id');
  if (externalId !== undefined && state.modals.byExternalId(externalId)) {
    return failure('duplicate_external_id');
  }
  const trigger = state.triggers.exchange(triggerId);
  if (!trigger.ok) return failure(trigger.error);
  const opened = state.modals.open(trigger.user, read.view);
  return { ok: true, view: toSlackView(opened) };
}

export function push(args: Arguments, { state }: WebApiContext): MethodResult {
  const read = readView(args);
  if (!read.ok) return read.result;
  const triggerId = stringArg(args, 'trigger_id');
  if (triggerId === undefined) return invalidArguments(['missing required field: trigger_id']);
  const trigger = state.triggers.exchange(triggerId);
  if (!trigger.ok) return failure(trigger.error);
  // The sandbox refuses a push when the person has no modal open (nothing to push onto).
  const pushed = state.modals.push(trigger.user, read.view);
  if (!pushed.ok) return failure(pushed.error);
  return { ok: true, view: toSlackView(pushed.view) };
}

export function update(args: Arguments, { state }: WebApiContext): MethodResult {
  const read = readView(args);
  if (!read.ok) return read.result;
  const viewId = stringArg(args, 'view_id');
  const externalId = stringArg(args, 'external_id');
  if (viewId === undefined && externalId === undefined) {
    return invalidArguments(['must provide either view_id or external_id']);
  }
  const target =
    viewId !== undefined ? state.modals.byId(viewId) : state.modals.byExternalId(externalId ?? '');
  if (!target) return failure('not_found');
  const hash = stringArg(args, 'hash');
  if (hash !== undefined && hash !== target.hash) return failure('hash_conflict');
  state.modals.update(target, read.view);
  return { ok: true, view: toSlackView(target) };
}

/** `views.publish`: the person's Home tab (`type: 'home'` only; no trigger id needed). */
export function publish(args: Arguments, { state }: WebApiContext): MethodResult {
  const read = readView(args);
  if (!read.ok) return read.result;
  const userId = stringArg(args, 'user_id');
  if (userId === undefined) return invalidArguments(['missing required field: user_id']);
  if (read.view.type !== 'home') {
    return invalidArguments([
      'views.publish takes only a view of type home [json-pointer:/view/type]',
    ]);
  }
  const person = findPerson(userId);
  if (!person || person.id !== userId) return failure('user_not_found');
  const hash = stringArg(args, 'hash');
  const current = state.homes.of(userId);
  if (hash !== undefined && current !== undefined && hash !== current.hash) {
    return failure('hash_conflict');
  }
  const published = state.homes.publish(userId, read.view);
  return { ok: true, view: toSlackView(published) };
}

function readView(
  args: Arguments,
): { ok: true; view: JsonObject } | { ok: false; result: MethodResult } {
  const view = jsonArg(args, 'view');
  if (view.kind === 'absent') {
    return { ok: false, result: invalidArguments(['missing required field: view']) };
  }
  if (view.kind === 'invalid' || !isJsonObject(view.value)) {
    return {
      ok: false,
      result: invalidArguments(['failed to match all allowed schemas [json-pointer:/view]']),
    };
  }
  const problems = checkView(view.value).map(underView);
  if (problems.some((p) => p.startsWith(`${VIEW_TOO_LARGE}:`))) {
    return { ok: false, result: failure('view_too_large') };
  }
  if (problems.length > 0) return { ok: false, result: invalidArguments(problems) };
  return { ok: true, view: view.value };
}

function invalidArguments(problems: readonly string[]): MethodResult {
  return failure('invalid_arguments', {
    response_metadata: { messages: problems.map((p) => `[ERROR] ${p}`) },
  });
}

/** Slack reports view problems against the request (`/view/blocks/0`), not the view alone. */
function underView(problem: string): string {
  return problem.replace(/\[json-pointer:(\/[^\]]*)?\]/, (whole, pointer: string | undefined) =>
    pointer?.startsWith('/view') ? whole : `[json-pointer:/view${pointer ?? ''}]`,
  );
}
