import type { GateOutcome, GateRecord } from '../../approvals/records.js';
import type { ToolOutcome } from '../../approvals/tool-outcomes.js';
import type { StandIns } from './gate-lines.js';

/** What a gate's blocks are rendered from, on the detailed card and in compact rows. */
export interface GateContext {
  gate: GateRecord;
  /** Position on the card: numbering and block ids. */
  position: number;
  /**
   * Position in the pause's `callIds`: how menus name the gate (see `GateChoice`). Absent when
   * the card cannot use menus (a gate missing from `callIds`, a pause id too long for them).
   */
  menuIndex?: number;
  /** How many gates the pause has: numbering is shown only when there are several. */
  count: number;
  pauseId: string;
  now: number;
  /** What the tool did once the agent resumed, when known: an approved call can still fail. */
  toolOutcome?: ToolOutcome;
  /** What the agent reported for this gate through the approvals API, when it did. */
  agentOutcome?: GateOutcome['status'];
  /** The card states who may approve and the expiry once, for every gate: leave them out here. */
  sharedFacts?: boolean;
  /** Approvers who handed over while away, and who stands in for them. */
  standIns?: StandIns;
}
