import { SYSTEM_ACTOR } from '../../records.js';
import type { SetCardTsArgs } from '../scripts/set-card-ts.lua.js';
import type { PauseRun } from './prelude.js';

/** Twin of scripts/set-card-ts.lua.ts: remembers the Slack message ts of the pause's card. */
export function setCardTs(run: PauseRun, args: SetCardTsArgs): void {
  run.entry.pause.card.ts = args.ts;
  run.entry.pause.version += 1;
  run.audit('card_posted', SYSTEM_ACTOR, '', '');
}
