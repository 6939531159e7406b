import type { Clock } from '../approvals/clock.js';
import { apiActor } from '../approvals/deciders.js';
import type { GrantStore } from '../approvals/grants.js';
import type { ResolvedGatePolicy } from '../approvals/policy.js';
import type { PauseView } from '../approvals/records.js';
import type { ApprovalStore } from '../approvals/store.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import { pauseMetadata } from '../slack/codecs/pause-metadata.js';
import {
  renderCredentialRequest,
  renderUnraisedConfirmation,
} from '../slack/render/request-notices.js';
import type { SlackPort } from '../slack/transport/port.js';
import type { ApprovalChecks } from './approval-checks.js';
import type { CardClaimHold } from './card-claim-hold.js';
import type { FoundEarlier } from './card-posting.js';
import type { ApprovalCards } from './cards.js';
import type { PolicyVotes } from './decider.js';
import { coverByGrants, granterCheck } from './grant-cover.js';
import {
  applyPolicyVerdicts,
  isAutomatic,
  type PolicyDecidedGate,
  policyDecisionsMessage,
} from './policy-decisions.js';
import type { RunThreads, ThreadRef } from './run-thread.js';
import type { StreamNotices } from './stream-requests.js';

/** A gate as the policy resolved it for the request, before grants. */
export type ResolvedGate = PolicyDecidedGate & ResolvedGatePolicy;

/** What of a posted pause's request showing it needs. */
export interface ShownRequest {
  keyName: string;
  app: string;
  requesterSlackUserId?: string;
  notices?: StreamNotices;
}

/**
 * How a pause posted through the approvals API is shown once it is recorded: its card, or the
 * policy's line when the policy (or grants) decide every gate, and the notices beside it. Run by
 * the request that recorded the pause, or by a retry of it that took over (`CardPosting`).
 */
export class ApiPauseCards {
  constructor(
    private readonly deps: {
      store: Pick<ApprovalStore, 'pauses'>;
      cards: ApprovalCards;
      threads: RunThreads;
      clock: Clock;
      log: Log;
      votes?: PolicyVotes;
      grants?: GrantStore;
      checks?: Pick<ApprovalChecks, 'granterMayApprove'>;
      slack?: SlackPort;
    },
  ) {}

  /**
   * What follows recording a pause: grants, then the card and the policy's verdicts, or the
   * policy's line alone when they decide every gate, then the notices. `earlier`: the card or
   * line a poster that died got Slack to post, used instead of posting it again.
   */
  async show(
    view: PauseView,
    resolved: readonly ResolvedGate[],
    input: ShownRequest,
    channel: string,
    { earlier, hold }: { earlier: FoundEarlier; hold: CardClaimHold },
  ): Promise<void> {
    const { cards, log } = this.deps;
    // Grants apply only where their votes can be (the same condition as the policy's own).
    const entries =
      this.deps.votes === undefined
        ? resolved
        : await coverByGrants(this.deps.grants, resolved, {
            origin: `api:${input.keyName}`,
            app: input.app,
            requester: input.requesterSlackUserId ?? apiActor(input.keyName),
            adk: view.pause.adk,
            now: this.deps.clock(),
            log,
            ...granterCheck(this.deps.checks, view),
          });
    const byPolicy = entries.filter(isAutomatic);
    if (byPolicy.length > 0 && byPolicy.length === resolved.length) {
      await this.decideAllByPolicy(view, byPolicy, await earlier('policy_line'), hold.signal);
      return;
    }
    const found = await earlier('card');
    const posted =
      found === undefined ? await cards.post(view, { hold }) : await cards.adopt(view, found);
    if (this.deps.votes !== undefined) {
      await applyPolicyVerdicts(this.deps.votes, posted, byPolicy);
    }
    // A card found again: its poster died after it, and its notices, if any, with it (never
    // posted twice).
    if (found !== undefined) return;
    const ts = posted.pause.card.threadTs ?? posted.pause.card.ts;
    await this.postNotices(
      ts === undefined ? { channelId: channel } : { channelId: channel, threadTs: ts },
      input.notices,
    );
  }

  /**
   * Every gate decided by the policy: no card. One line in the channel says what and which rule
   * (its ts is saved as the card's, so that nothing posts a "missing" card), then the decisions,
   * the last of which wakes the agent's long-poll or starts its resume.
   */
  private async decideAllByPolicy(
    view: PauseView,
    entries: readonly PolicyDecidedGate[],
    found: string | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    const { slack, store, clock, log } = this.deps;
    if (found !== undefined) await store.pauses.setCardTs(view.pause.id, found, clock());
    else if (slack !== undefined) {
      const { channelId, threadTs } = view.pause.card;
      const line = await slack
        .postMessage({
          channel: channelId,
          ...(threadTs === undefined ? {} : { threadTs }),
          ...policyDecisionsMessage(entries),
          metadata: pauseMetadata(view.pause.id, 'policy_line'),
          signal,
        })
        .catch((error: unknown) => {
          log.warn('could not post the policy decision line', {
            pauseId: view.pause.id,
            error: errorMessage(error),
          });
          return undefined;
        });
      if (line !== undefined) await store.pauses.setCardTs(view.pause.id, line.ts, clock());
    }
    if (this.deps.votes !== undefined) {
      await applyPolicyVerdicts(this.deps.votes, view, entries);
    }
    log.info('pause decided by the policy', {
      pauseId: view.pause.id,
      rules: entries.map(({ verdict }) => verdict?.rule.name).join(','),
    });
  }

  /** Tells people what the agent asked that cannot be answered here; never throws. */
  async postNotices(thread: ThreadRef, notices: StreamNotices | undefined): Promise<void> {
    if (notices === undefined) return;
    const { threads } = this.deps;
    if (notices.credentialTools.length > 0) {
      await threads.post(thread, renderCredentialRequest(notices.credentialTools));
    }
    for (const unraised of notices.unraisedConfirmations) {
      await threads.post(thread, renderUnraisedConfirmation(unraised));
    }
  }
}
