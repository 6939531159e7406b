import type { App } from '@slack/bolt';
import { GRANT_ID, type GrantScope } from '../approvals/grants.js';
import type { Refusal } from '../approvals/outcomes.js';
import { correlationId } from '../correlation.js';
import { errorMessage } from '../error-message.js';
import { secondsSince } from '../metrics.js';
import {
  ACTION_IDS,
  type ActionId,
  type ButtonValue,
  GRANT_ACTION_IDS,
  parseButtonValue,
  parseGateChoice,
} from '../slack/codecs/action-ids.js';
import type { SlackMessage } from '../slack/codecs/block-kit.js';
import { batchable, renderBatchSelectModal } from '../slack/render/batch-modal.js';
import { renderInputModal } from '../slack/render/input-modal.js';
import { renderEditModal, renderRejectModal } from '../slack/render/modals.js';
import { renderRefusal } from '../slack/render/notices.js';
import type { DecisionReply } from '../workflow/decider.js';
import type { ListenerDeps } from './deps.js';
import { exactlyOneOf } from './one-of.js';
import { type BlockAction, blockActionSchema } from './payloads.js';
import { privateReply } from './replies.js';

interface ActionContext {
  user: string;
  /** The click came from the App Home tab: replies go to the Home, not a channel. */
  fromHome: boolean;
  triggerId: string;
  /** The card: where the modal's submission reports back. */
  channelId: string | undefined;
  messageTs: string | undefined;
  action: BlockAction['actions'][number];
  reply: (message: SlackMessage) => Promise<void>;
}

type ActionHandler = (context: ActionContext) => Promise<void>;

/** The card's buttons and menus. Every click is acknowledged before anything else happens. */
export function registerApprovalActions(app: App, deps: ListenerDeps): void {
  const { workflow } = deps;
  const handlers = new Map<ActionId, ActionHandler>();
  const on = (actionId: ActionId, handle: ActionHandler) => {
    handlers.set(actionId, handle);
  };
  const answer = async (context: ActionContext, reply: DecisionReply) => {
    if (reply.kind === 'refused') await refuse(deps, context, reply.refusal);
  };

  on(ACTION_IDS.approve, async (context) => {
    const target = gateButton(context);
    if (target === undefined) return unreadable(context);
    await answer(
      context,
      await workflow.vote({ ...target, voter: context.user, choice: 'approve' }, context.reply),
    );
  });
  on(ACTION_IDS.reject, async (context) => {
    const target = gateButton(context);
    if (target === undefined) return unreadable(context);
    await openRejectModal(deps, context, target.pauseId, [target.callId]);
  });
  // The App Home's buttons: the same checks and store steps as the card's, and the Home follows.
  on(ACTION_IDS.homeApprove, async (context) => {
    const target = gateButton(context);
    if (target === undefined) return unreadable(context);
    const reply = await workflow.vote(
      { ...target, voter: context.user, choice: 'approve' },
      context.reply,
    );
    if (reply.kind === 'refused') await refuse(deps, context, reply.refusal);
    else deps.homes.refresh(context.user);
  });
  on(ACTION_IDS.homeReject, async (context) => {
    const target = gateButton(context);
    if (target === undefined) return unreadable(context);
    await openRejectModal(deps, context, target.pauseId, [target.callId]);
  });
  // Several calls at once, from the Home: pick them, then confirm exactly those (views.ts).
  on(ACTION_IDS.homeBatch, async (context) => {
    const gates = batchable(await deps.homes.decidableBy(context.user));
    if (gates.length === 0) {
      deps.homes.refresh(context.user, 'Nothing waiting for you can be decided in a batch.');
      return;
    }
    await deps.slack.openView({
      triggerId: context.triggerId,
      view: renderBatchSelectModal(gates),
    });
  });
  on(ACTION_IDS.edit, async (context) => {
    const target = gateButton(context);
    if (target === undefined) return unreadable(context);
    await openEditModal(deps, context, target.pauseId, target.callId);
  });
  on(ACTION_IDS.answer, async (context) => {
    const target = gateButton(context);
    if (target === undefined) return unreadable(context);
    await openInputModal(deps, context, target.pauseId, target.callId);
  });
  on(ACTION_IDS.approveAll, async (context) => {
    const target = parseButtonValue(context.action.value);
    if (target === undefined) return unreadable(context);
    await answer(
      context,
      await workflow.voteAll(
        { pauseId: target.pauseId, voter: context.user, choice: 'approve' },
        context.reply,
      ),
    );
  });
  on(ACTION_IDS.rejectAll, async (context) => {
    const target = parseButtonValue(context.action.value);
    if (target === undefined) return unreadable(context);
    await openRejectModal(deps, context, target.pauseId, []);
  });
  on(ACTION_IDS.withdraw, async (context) => {
    const target = parseButtonValue(context.action.value);
    if (target === undefined) return unreadable(context);
    await answer(context, await workflow.withdraw({ pauseId: target.pauseId, user: context.user }));
  });
  on(ACTION_IDS.undo, async (context) => {
    const target = parseButtonValue(context.action.value);
    if (target === undefined) return unreadable(context);
    await answer(context, await workflow.undo(target.pauseId, context.user));
  });
  // Approve, and let a grant of the button's scope decide later calls (grant-decisions.ts).
  for (const [scope, actionId] of Object.entries(GRANT_ACTION_IDS) as [GrantScope, ActionId][]) {
    on(actionId, async (context) => {
      const target = gateButton(context);
      if (target === undefined) return unreadable(context);
      const request = { ...target, granter: context.user, scope };
      await answer(context, await workflow.grant(request, context.reply));
    });
  }
  // Handing over while away (delegation-views.ts has the modal's submission).
  on(ACTION_IDS.homeHandOver, async (context) => {
    await deps.slack.openView({ triggerId: context.triggerId, view: deps.delegations.modal() });
  });
  on(ACTION_IDS.homeEndHandOver, async (context) => {
    await deps.delegations.end(context.user);
  });
  on(ACTION_IDS.homeRevokeGrant, async (context) => {
    const id = context.action.value;
    if (id === undefined || !GRANT_ID.test(id)) return unreadable(context);
    const reply = await deps.grants.revoke(id, context.user);
    if (reply.kind === 'refused') await refuse(deps, context, reply.refusal);
    else deps.homes.refresh(context.user, 'Grant revoked: later calls ask a person again.');
  });
  on(ACTION_IDS.retryResume, async (context) => {
    const target = parseButtonValue(context.action.value);
    if (target === undefined) return unreadable(context);
    await answer(context, await workflow.retryResume(target.pauseId, context.user));
  });
  on(ACTION_IDS.gateMenu, async (context) => {
    const choice = parseGateChoice(context.action.selected_option?.value);
    if (choice === undefined) return unreadable(context);
    const callId = await workflow.callIdAt(choice.pauseId, choice.gateIndex);
    if (callId === undefined) {
      await context.reply(renderRefusal({ kind: 'not_found' }));
      return;
    }
    switch (choice.decision) {
      case 'approve':
        await answer(
          context,
          await workflow.vote(
            { pauseId: choice.pauseId, callId, voter: context.user, choice: 'approve' },
            context.reply,
          ),
        );
        return;
      case 'reject':
        await openRejectModal(deps, context, choice.pauseId, [callId]);
        return;
      case 'edit':
        await openEditModal(deps, context, choice.pauseId, callId);
        return;
      case 'answer':
        await openInputModal(deps, context, choice.pauseId, callId);
        return;
    }
  });
  routeActions(app, deps, handlers);
}

/**
 * One Bolt listener for every action id this app made, which hands each click to its handler.
 * Bolt runs every listener's middleware for every request: one listener per action id cost each
 * click a few dozen middleware chains that did not match. Clicks on ids not in `handlers` match
 * no listener, as before.
 */
function routeActions(
  app: App,
  deps: ListenerDeps,
  handlers: ReadonlyMap<ActionId, ActionHandler>,
): void {
  const { log, metrics } = deps;
  app.action(
    { action_id: exactlyOneOf(handlers.keys()) },
    async ({ ack, body, respond, payload, context: bolt }) => {
      await ack();
      const actionId = 'action_id' in payload ? payload.action_id : 'unknown';
      const handle = handlers.get(actionId as ActionId);
      if (handle === undefined) {
        log.warn('a click matched no handler', { actionId });
        return;
      }
      // Stamped by the receiver (bolt-app.ts) when the request arrived.
      const { receivedAt } = bolt;
      if (typeof receivedAt === 'number') metrics.clickToAck(secondsSince(receivedAt));
      const parsed = blockActionSchema.safeParse(body);
      const fromHome = parsed.success && parsed.data.view?.type === 'home';
      const reply =
        fromHome && parsed.success
          ? homeReply(deps, parsed.data.user.id)
          : privateReply(respond, log);
      const action = parsed.success ? parsed.data.actions[0] : undefined;
      if (!parsed.success || action === undefined) {
        log.warn('unreadable block action', {
          actionId,
          problem: parsed.error?.issues[0]?.message,
        });
        await reply({ text: 'Slack sent a click this app could not read; nothing changed.' });
        return;
      }
      const { user, trigger_id, channel, message } = parsed.data;
      try {
        await handle({
          user: user.id,
          fromHome,
          triggerId: trigger_id,
          channelId: channel?.id,
          messageTs: message?.ts,
          action,
          reply,
        });
      } catch (error) {
        log.error('handling a click failed', {
          actionId,
          user: user.id,
          error: errorMessage(error),
        });
        await reply(renderRefusal({ kind: 'decision_failed', reference: correlationId() }));
      }
    },
  );
}

/** A Home click has no `response_url`: its answer is a notice on the person's Home. */
function homeReply(deps: ListenerDeps, user: string) {
  return async (message: SlackMessage): Promise<void> => {
    deps.homes.refresh(user, message.text);
  };
}

function gateButton(context: ActionContext): Required<ButtonValue> | undefined {
  const value = parseButtonValue(context.action.value);
  return value?.callId === undefined ? undefined : { pauseId: value.pauseId, callId: value.callId };
}

async function unreadable(context: ActionContext): Promise<void> {
  await context.reply({ text: 'This button is not one this app made, or it is out of date.' });
}

async function openRejectModal(
  deps: ListenerDeps,
  context: ActionContext,
  pauseId: string,
  callIds: string[],
): Promise<void> {
  const { workflow, slack } = deps;
  const check = await workflow.check(pauseId, callIds, context.user);
  if (check.kind === 'refused') {
    await refuse(deps, context, check.refusal);
    return;
  }
  await slack.openView({
    triggerId: context.triggerId,
    view: renderRejectModal({
      pauseId,
      callIds: check.gates.map((gate) => gate.confirmationCallId),
      calls: check.gates.map((gate) => gate.originalCall),
      reasonRequired: check.policies.some((policy) => policy.reasonRequired),
      ...cardOf(context),
    }),
  });
}

async function openEditModal(
  deps: ListenerDeps,
  context: ActionContext,
  pauseId: string,
  callId: string,
): Promise<void> {
  const { workflow, slack } = deps;
  const check = await workflow.check(pauseId, [callId], context.user);
  if (check.kind === 'refused') {
    await refuse(deps, context, check.refusal);
    return;
  }
  const [gate] = check.gates;
  if (gate === undefined) return;
  await slack.openView({
    triggerId: context.triggerId,
    view: renderEditModal({ pauseId, gate, ...cardOf(context) }),
  });
}

async function openInputModal(
  deps: ListenerDeps,
  context: ActionContext,
  pauseId: string,
  callId: string,
): Promise<void> {
  const check = await deps.workflow.check(pauseId, [callId], context.user);
  if (check.kind === 'refused') {
    await refuse(deps, context, check.refusal);
    return;
  }
  const [gate] = check.gates;
  if (gate === undefined) return;
  await deps.slack.openView({
    triggerId: context.triggerId,
    view: renderInputModal({ pauseId, gate, ...cardOf(context) }),
  });
}

/** Says why privately; a card whose pause is gone from the store is also marked so for all. */
async function refuse(deps: ListenerDeps, context: ActionContext, refusal: Refusal) {
  if (refusal.kind === 'pause_gone' && context.channelId && context.messageTs) {
    await deps.workflow.showPauseGone({ channelId: context.channelId, ts: context.messageTs });
  }
  await context.reply(renderRefusal(refusal));
}

function cardOf(context: ActionContext): { channelId?: string; messageTs?: string } {
  return {
    ...(context.channelId === undefined ? {} : { channelId: context.channelId }),
    ...(context.messageTs === undefined ? {} : { messageTs: context.messageTs }),
  };
}
