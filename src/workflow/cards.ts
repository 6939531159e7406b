import { createHash, randomUUID } from 'node:crypto';
import type { Clock } from '../approvals/clock.js';
import { deciderOf } from '../approvals/deciders.js';
import {
  DEFAULT_DELEGATION_MAX_HOPS,
  type DelegationStore,
  standIns,
} from '../approvals/delegations.js';
import { isFinishedResume, type PauseView } from '../approvals/records.js';
import type { ApprovalStore } from '../approvals/store.js';
import type { ToolOutcome } from '../approvals/tool-outcomes.js';
import { errorMessage } from '../error-message.js';
import type { Log } from '../log.js';
import {
  PAUSE_METADATA_EVENT,
  type PauseMessageKind,
  pauseMetadata,
} from '../slack/codecs/pause-metadata.js';
import { renderApprovalCard } from '../slack/render/approval-card.js';
import { renderExternalNotes, withExternalNotes } from '../slack/render/external-notes.js';
import { SlackCallError, type SlackPort } from '../slack/transport/port.js';
import type { ApprovalTracing } from '../tracing/approval-tracing.js';
import type { HomeUpdates } from './app-homes.js';
import { CARD_CLAIM_LEASE_MS, type CardClaimHold, holdCardClaim } from './card-claim-hold.js';

/** A card re-rendered this many times without settling is left to the next change. */
const MAX_REFRESH_ROUNDS = 3;
/** Cards whose last sent content this replica remembers (a digest each), newest kept. */
const REMEMBERED_CARDS = 10_000;
/** How far Slack's clock may be behind the app's, for finding a card posted before a crash. */
const CLOCK_SKEW_MS = 5 * 60_000;

/**
 * Posts approval cards and keeps them in sync with the store. Every render starts from a fresh
 * read, and a refresh repeats while the records change under it, so that the card converges on
 * the latest state even when two replicas update it at once.
 */
export class ApprovalCards {
  constructor(
    private readonly deps: {
      store: Pick<ApprovalStore, 'pauses' | 'notes' | 'cardClaims'>;
      slack: SlackPort;
      clock: Clock;
      log: Log;
      /** A card was posted or re-rendered: its people's Homes follow. Absent: none do. */
      homes?: Pick<HomeUpdates, 'pauseChanged'>;
      tracing: ApprovalTracing;
      /** Hand-overs while away: the card names the stand-in of an approver away. Absent: none. */
      delegations?: Pick<DelegationStore, 'list'>;
      /** How far a hand-over reaches (`DELEGATION_MAX_HOPS`). Default 1. */
      delegationMaxHops?: number;
    },
  ) {}

  /**
   * A digest of what this replica last sent to each card (its message and content): a render that
   * would send the same again is skipped, however the refreshes that produced it were timed (a
   * change that lands during one refresh's update is rendered by that refresh, and the refresh the
   * change then asks for finds nothing new). Safe across replicas: a card's block ids carry its
   * records' versions, so no later state renders like an earlier one.
   */
  private readonly lastSent = new Map<string, string>();

  /**
   * Posts the card of a newly recorded pause and remembers where it went. A card is posted once:
   * only by the holder of its claim (`CardClaims`), which this takes (`claimedBy`: the sweeper
   * took it already, for that owner) and holds until the card's ts is saved. While another poster
   * holds it (the request that recorded the pause is still posting, its post waiting out Slack's
   * rate limit), nothing is posted and the view is returned as it was. `hold`: the caller holds
   * the claim, and goes on holding it after the post. The message carries the pause id as
   * metadata, so that a post whose answer was lost is found again (`findPosted`).
   */
  async post(
    view: PauseView,
    { claimedBy, hold: held }: { claimedBy?: string; hold?: CardClaimHold } = {},
  ): Promise<PauseView> {
    const { card, id: pauseId } = view.pause;
    const { store, clock, log } = this.deps;
    const owner = claimedBy ?? `card-post:${randomUUID()}`;
    if (claimedBy === undefined && held === undefined) {
      const claim = { pauseId, owner, leaseMs: CARD_CLAIM_LEASE_MS, now: clock() };
      if (!(await store.cardClaims.claim(claim))) {
        log.info('another poster holds the claim on this card; not posting it again', { pauseId });
        return view;
      }
    }
    const hold =
      held ?? holdCardClaim({ claims: store.cardClaims, clock, log }, { pauseId, owner });
    try {
      const startedAt = clock();
      const message = await this.render(view);
      const posted = await this.deps.slack
        .postMessage({
          channel: card.channelId,
          ...(card.threadTs === undefined ? {} : { threadTs: card.threadTs }),
          ...message,
          metadata: pauseMetadata(pauseId, 'card'),
          signal: hold.signal,
        })
        .catch((error: unknown) => {
          this.deps.tracing.cardPosted(view, startedAt, errorMessage(error));
          throw error;
        });
      this.deps.tracing.cardPosted(view, startedAt);
      const updated = await store.pauses.setCardTs(pauseId, posted.ts, clock());
      this.deps.homes?.pauseChanged(pauseId);
      return updated ?? view;
    } finally {
      if (held === undefined) await hold.release();
    }
  }

  /**
   * The card of a pause recorded without one (its poster died): the card Slack posted before the
   * poster died, whose ts it never saved, if there is one (then that ts is saved), else a new one.
   */
  async postMissing(view: PauseView, options: { claimedBy: string }): Promise<PauseView> {
    const found = await this.findPosted(view, 'card');
    return found === undefined ? this.post(view, options) : this.adopt(view, found);
  }

  /**
   * The ts of the pause's card (or policy line) Slack posted although its poster never saved the
   * ts: the poster died between Slack's post and its answer. Undefined when there is none; also
   * when Slack cannot say, logged: a card posted twice is better than none.
   */
  async findPosted(view: PauseView, kind: PauseMessageKind): Promise<string | undefined> {
    const { card, id, createdAt } = view.pause;
    try {
      return await this.deps.slack.findOwnMessage({
        channel: card.channelId,
        ...(card.threadTs === undefined ? {} : { threadTs: card.threadTs }),
        // Slack's clock may be behind the one that dated the pause.
        sinceMs: createdAt - CLOCK_SKEW_MS,
        eventType: PAUSE_METADATA_EVENT,
        payload: pauseMetadata(id, kind).event_payload,
      });
    } catch (error) {
      this.deps.log.warn('could not look for a card posted before a crash; posting it', {
        pauseId: id,
        error: errorMessage(error),
      });
      return undefined;
    }
  }

  /**
   * Saves the ts of a card posted earlier (`findPosted`), as `post` does after posting, and
   * renders it again: the pause may have changed since (cancelled, expired) with no card to show it.
   */
  async adopt(view: PauseView, ts: string): Promise<PauseView> {
    this.deps.log.info('found the card posted before a crash', { pauseId: view.pause.id });
    const updated = await this.deps.store.pauses.setCardTs(view.pause.id, ts, this.deps.clock());
    await this.refresh(view.pause.id, updated === undefined ? {} : { known: updated });
    return updated ?? view;
  }

  /**
   * The card; a pause posted through the API also shows its notes (outcomes, delivery, claims),
   * and a gate the agent answered itself says so.
   */
  private async render(view: PauseView, toolOutcomes?: ReadonlyMap<string, ToolOutcome>) {
    const now = this.deps.clock();
    const standIns = await this.standIns(view, now);
    const known = {
      ...(toolOutcomes === undefined ? {} : { toolOutcomes }),
      ...(standIns.size === 0 ? {} : { standIns }),
    };
    if (view.pause.external === undefined) return renderApprovalCard(view, { now, ...known });
    const notes = await this.deps.store.notes.readNotes(view.pause.id);
    const agentOutcomes = new Map(
      Object.entries(notes.outcomes).map(([callId, outcome]) => [callId, outcome.status]),
    );
    const card = renderApprovalCard(view, { now, ...known, notes, agentOutcomes });
    return withExternalNotes(card, renderExternalNotes(view, notes));
  }

  /**
   * Who stands in for the card's approvers now; none while nothing is pending, or when the
   * hand-overs cannot be read (the card then names the approvers themselves, logged).
   */
  private async standIns(view: PauseView, now: number): Promise<Map<string, string>> {
    const { delegations } = this.deps;
    if (delegations === undefined || !view.gates.some((g) => g.state === 'pending')) {
      return new Map();
    }
    try {
      const all = await delegations.list(now);
      return standIns(all, now, this.deps.delegationMaxHops ?? DEFAULT_DELEGATION_MAX_HOPS);
    } catch (error) {
      this.deps.log.warn('could not read hand-overs for a card', { error: errorMessage(error) });
      return new Map();
    }
  }

  /**
   * Re-renders the card from the store. Failures are logged and returned, not thrown: the
   * decision is already recorded; `CardRefresher` tries again. `known`: the view a store write just
   * returned, rendered without reading it again; it saves a store read and a record decoding per
   * update. After each update a versions-only check (`changedSince`) catches a later change.
   * `toolOutcomes`: what each approved call did once the agent resumed (ran or failed), known only
   * to the resume; read at each render, so that a render after the resume's mark shows it.
   * `superseded`: whether a later refresh of this card is on its way, which renders such a change
   * itself (a change made by this replica asks for one): this one then stops.
   */
  async refresh(
    pauseId: string,
    {
      known,
      toolOutcomes,
      superseded,
    }: {
      known?: PauseView;
      toolOutcomes?: () => ReadonlyMap<string, ToolOutcome> | undefined;
      superseded?: () => boolean;
    } = {},
  ): Promise<RefreshOutcome> {
    this.deps.homes?.pauseChanged(pauseId);
    try {
      let view = known ?? (await this.deps.store.pauses.getPause(pauseId));
      for (let round = 0; round < MAX_REFRESH_ROUNDS; round += 1) {
        const ts = view?.pause.card.ts;
        if (view === undefined || ts === undefined) return DONE;
        // Decided by the policy or a grant alone: its "card" is the thread line that says so.
        if (decidedWithoutAPerson(view)) return DONE;
        const card = await this.render(view, toolOutcomes?.());
        // A change the card does not show (a resume claimed, a lease renewed), or one an earlier
        // refresh already sent, is not sent again.
        const digest = digestOf(ts, card);
        if (this.lastSent.get(pauseId) === digest) return DONE;
        await this.deps.slack.updateMessage({ channel: view.pause.card.channelId, ts, ...card });
        this.remember(pauseId, digest);
        // Changed meanwhile (another replica's update may have landed before this one): again.
        // A pause whose resume is over changes no more: nothing can have landed after this view.
        if (superseded?.() || isFinishedResume(view.pause.resume.state)) return DONE;
        if (!(await this.deps.store.pauses.changedSince(view))) return DONE;
        view = await this.deps.store.pauses.getPause(pauseId);
      }
      return DONE;
    } catch (error) {
      this.deps.log.error('could not update the approval card', {
        pauseId,
        error: errorMessage(error),
      });
      return error instanceof SlackCallError && error.retryAfterMs !== undefined
        ? { kind: 'failed', retryAfterMs: error.retryAfterMs }
        : { kind: 'failed' };
    }
  }

  private remember(pauseId: string, digest: string): void {
    this.lastSent.delete(pauseId);
    this.lastSent.set(pauseId, digest);
    if (this.lastSent.size <= REMEMBERED_CARDS) return;
    const oldest = this.lastSent.keys().next();
    if (oldest.done !== true) this.lastSent.delete(oldest.value);
  }
}

/** What a card message says, and which message it is. */
function digestOf(ts: string, card: unknown): string {
  return createHash('sha1').update(ts).update(JSON.stringify(card)).digest('base64');
}

/** `retryAfterMs`: Slack rate-limited the update and asked to wait this long. */
export type RefreshOutcome = { kind: 'done' } | { kind: 'failed'; retryAfterMs?: number };
const DONE: RefreshOutcome = { kind: 'done' };

/**
 * Every gate decided by a policy rule or a person's scoped grant: there was never a card, only a
 * line in the thread that names the rule, or the grant and who gave it (drawing a card over it
 * would show "1 of 1 approval: grant …" and lose the granter). A grant's approval the re-check
 * sends back is pending again, and gets its card then.
 */
export function decidedWithoutAPerson(view: PauseView): boolean {
  return view.gates.every((gate) => {
    const decider = gate.decision === undefined ? undefined : deciderOf(gate.decision.by).kind;
    return decider === 'policy' || decider === 'grant';
  });
}
