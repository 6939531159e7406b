import type { PauseView } from '../approvals/records.js';
import type { ToolOutcome } from '../approvals/tool-outcomes.js';
import type { HomeUpdates } from './app-homes.js';
import type { CardRefresher } from './card-refresher.js';

/** What changed a pause, as far as redrawing it goes. */
export interface PauseChange {
  /** The pause as the change returned it: its card is drawn from it without reading it again. */
  view?: PauseView;
  /**
   * A resume follows, which changes the pause again before its card is drawn: `view` still says
   * whose Homes the change concerns, and the card reads the pause when it is drawn.
   */
  resumeFollows?: boolean;
  /** What a resume learned of its calls, for the card. */
  toolOutcomes?: ReadonlyMap<string, ToolOutcome>;
}

/**
 * The port through which whatever changes a pause (a vote, an expiry, a withdrawal, a resume)
 * has it shown: its card is redrawn, and the Homes of the people it concerns follow. Never waits
 * on Slack: a slow channel delays no decision and no resume.
 */
export interface CardUpdates {
  pauseChanged(pauseId: string, change?: PauseChange): void;
  /**
   * What the resumed calls did, told before the pause is marked resumed: a card refresh already
   * under way that sees that mark shows them too, and the refresh asked for after the mark has
   * nothing new to send.
   */
  knowToolOutcomes(pauseId: string, toolOutcomes: ReadonlyMap<string, ToolOutcome>): void;
}

/** `CardUpdates` as queued redraws: the card by the `CardRefresher`, then the Homes. */
export class QueuedCardUpdates implements CardUpdates {
  constructor(private readonly deps: { refresher: CardRefresher; homes: HomeUpdates }) {}

  pauseChanged(pauseId: string, { view, resumeFollows, toolOutcomes }: PauseChange = {}): void {
    this.deps.refresher.request(pauseId, toolOutcomes, resumeFollows ? undefined : view);
    this.deps.homes.pauseChanged(pauseId, view);
  }

  knowToolOutcomes(pauseId: string, toolOutcomes: ReadonlyMap<string, ToolOutcome>): void {
    this.deps.refresher.knowToolOutcomes(pauseId, toolOutcomes);
  }
}
