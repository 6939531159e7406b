import { SYSTEM_ACTOR } from '../../records.js';
import type { PlannedEntry } from '../redis-chain-offers.js';
import { type ArgsOf, arg, LUA_OFFER_SEAL, PauseScript, SEAL_OFFER_ARGS } from './pause-script.js';

const SET_CARD_TS_ARGS = {
  now: arg.number,
  /** The card's Slack message ts. */
  ts: arg.text(),
  ...SEAL_OFFER_ARGS,
};
export type SetCardTsArgs = ArgsOf<typeof SET_CARD_TS_ARGS>;

/**
 * set_card_ts: remembers the Slack message ts of the pause's card.
 * KEYS: [1] pause hash, [2] pause audit list, [3..] gate hashes in callIds order
 * ARGV: SET_CARD_TS_ARGS, in that order (the last four: lines sealed ahead, redis-chain-offers.ts)
 * Returns OK | NOT_FOUND | CORRUPT | KEYS_MISMATCH
 */
export const SET_CARD_TS = new PauseScript(
  'set_card_ts',
  SET_CARD_TS_ARGS,
  {
    body: `
${LUA_OFFER_SEAL}
local pause, gates = load()
if not pause then return gates end
hset(PAUSE, 'cardTs', args.ts)
bump(PAUSE)
audit(EVENT.card_posted, SYSTEM, nil, '')
return reply(CODE.OK)
`,
  },
  ({ code }) => code,
);

/**
 * The audit entry set_card_ts writes (the twin of its `audit` call): the line a replica seals
 * ahead (redis-chain-offers.ts).
 */
export function plannedCardPostedEntries(): PlannedEntry[] {
  return [{ event: 'card_posted', actor: SYSTEM_ACTOR, callId: '', detail: '' }];
}
