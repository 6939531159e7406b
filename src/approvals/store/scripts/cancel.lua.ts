import type { GateDecision } from '../../records.js';
import { type ArgsOf, arg, PauseScript } from './pause-script.js';

const CANCEL_ARGS = {
  now: arg.number,
  /** Who cancels. */
  by: arg.text(),
  decision: arg.json<GateDecision>(),
  retentionMs: arg.number,
  /** The audit detail. */
  detail: arg.text(),
};
export type CancelArgs = ArgsOf<typeof CANCEL_ARGS>;

/**
 * cancel: cancels every pending gate of a pause, which is then abandoned (never resumed).
 * KEYS: [1] pause hash, [2] pause audit list, [3..] gate hashes in callIds order
 * ARGV: CANCEL_ARGS, in that order
 * Returns CANCELLED {call ids cancelled...} | NOTHING_PENDING | NOT_FOUND | CORRUPT | KEYS_MISMATCH
 */
export const CANCEL = new PauseScript(
  'cancel',
  CANCEL_ARGS,
  {
    body: `
local pause, gates = load()
if not pause then return gates end
if pause.pending == 0 then return reply(CODE.NOTHING_PENDING) end
local cancelled = abandon(pause, gates, args.by, args.decision, args.detail, args.retentionMs)
return reply(CODE.CANCELLED, cancelled)
`,
  },
  ({ code }) => code,
);
