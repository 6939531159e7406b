import { type GrantOffer, offerLabel } from '../../approvals/grants.js';
import { type Button, plain } from '../codecs/block-kit.js';
import { escapeLine } from '../codecs/escape.js';
import { andList, listWithin } from './gate-lines.js';

/**
 * Slack's "are you sure?" dialogs. Each names what the click does to what: an approval names the
 * call it runs (the tool name escaped), a grant the scope it approves beyond this call. Taking
 * something away (Withdraw, Revoke) asks in red (`style: 'danger'`; Slack's default is green).
 * Slack's limits: title ≤ 100, text ≤ 300, buttons ≤ 30 characters, all plain text.
 */
export type ConfirmDialog = NonNullable<Button['confirm']>;

const TOOL_MAX = 60;
/** The names Approve all lists, within the dialog's 300 characters. */
const NAMES_MAX = 200;

function toolText(tool: string): string {
  return escapeLine(tool, TOOL_MAX);
}

/** Approve, on the card and on the App Home: "Approve transfer_money? The agent runs it at once." */
export function approveConfirm(tool: string): ConfirmDialog {
  return {
    title: plain('Approve this call?'),
    text: plain(`Approve ${toolText(tool)}? The agent runs it at once.`),
    confirm: plain('Approve'),
    deny: plain('Back'),
  };
}

/** A grant button: this call at once, and later calls within the scope without asking. */
export function grantConfirm(tool: string, offer: GrantOffer): ConfirmDialog {
  const name = toolText(tool);
  const [scope, later] = grantWords(offer);
  return {
    title: plain(offerLabel(offer).slice(0, 100)),
    text: plain(`Approve ${name} ${scope}? It runs at once, and ${later}.`),
    confirm: plain('Approve'),
    deny: plain('Back'),
  };
}

/** "for this session" and what it means for later calls, per offer. */
function grantWords(offer: GrantOffer): [string, string] {
  if (offer === 'session') {
    return ['for this session', 'later calls of it in this session run without asking'];
  }
  if (offer === 'exactArgs') {
    return [
      'for these exact arguments',
      'later calls of it with these exact arguments run without asking',
    ];
  }
  // The button reads "Approve for 1 hour": the scope is what follows the verb.
  const scope = offerLabel(offer).replace(/^Approve /, '');
  return [scope, `later calls of it run without asking ${scope}`];
}

/** Approve all: names the calls it approves, as many as fit. */
export function approveAllConfirm(tools: readonly string[]): ConfirmDialog {
  const one = tools.length === 1;
  const escaped = tools.map((tool) => toolText(tool));
  const all = andList(escaped);
  const names = all.length <= NAMES_MAX ? all : listWithin(escaped, NAMES_MAX);
  return {
    title: plain('Approve all?'),
    text: plain(`Approve ${names}? The agent runs ${one ? 'it' : 'them'} at once.`),
    confirm: plain('Approve all'),
    deny: plain('Back'),
  };
}

/**
 * A row's menu (Approve / Reject / Edit & approve) has one confirm for every option: it names
 * the call and says what Approve does; Reject and Edit & approve open their forms after it.
 */
export function menuConfirm(tool: string): ConfirmDialog {
  const name = toolText(tool);
  return {
    title: plain(`Decide ${escapeLine(tool, 80)}?`),
    text: plain(
      `If you chose Approve, the agent runs ${name} at once. Reject and Edit & approve open their form first.`,
    ),
    confirm: plain('Continue'),
    deny: plain('Back'),
  };
}

/** Withdraw: the pending calls will not run. */
export function withdrawConfirm(): ConfirmDialog {
  return {
    title: plain('Withdraw this request?'),
    text: plain(
      'The pending calls will not run, and the agent is told that you withdrew the request. Only the person who asked, or a policy admin, can withdraw it.',
    ),
    confirm: plain('Withdraw'),
    deny: plain('Back'),
    style: 'danger',
  };
}

/** Revoke, on the App Home: later calls ask a person again. */
export function revokeConfirm(): ConfirmDialog {
  return {
    title: plain('Revoke this grant?'),
    text: plain('Later calls it would have approved will ask a person again.'),
    confirm: plain('Revoke'),
    deny: plain('Keep it'),
    style: 'danger',
  };
}
