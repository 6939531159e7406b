import { describe, expect, it } from 'vitest';
import type { Refusal } from '../../../src/approvals/outcomes.js';
import { renderRefusal } from '../../../src/slack/render/notices.js';
import { expectInert, expectValidMessage } from '../blocks.js';

const AT = Date.UTC(2026, 10, 22, 5, 47, 37);
const DATE = `<!date^${AT / 1000}^{date_short_pretty} at {time}|2026-11-22T05:47:37Z>`;

function say(refusal: Refusal): string {
  const message = renderRefusal(refusal);
  expectValidMessage(message);
  expectInert([], message.text.replace(/<@[A-Z0-9]+>|<!subteam\^[A-Z0-9]+>|<!date[^>]+>/g, ''));
  return message.text;
}

describe('ephemeral refusals', () => {
  it('tells a non-approver who may approve', () => {
    expect(
      say({
        kind: 'not_approver',
        approvers: [
          { kind: 'user', id: 'U1' },
          { kind: 'usergroup', id: 'S1' },
          { kind: 'channel' },
        ],
      }),
    ).toBe(
      ':no_entry: You are not among those who may approve this: <@U1>, <!subteam^S1>, members of the card’s channel.',
    );
  });

  it('words a refusal about a question (an input request) as answering, not approving', () => {
    expect(
      say({ kind: 'not_approver', approvers: [{ kind: 'user', id: 'U1' }], question: true }),
    ).toBe(':no_entry: You are not among those who may answer this: <@U1>.');
    expect(say({ kind: 'self_approval', question: true })).toContain(
      'answer its questions yourself',
    );
    expect(
      say({
        kind: 'already_decided',
        state: 'approved',
        decision: { by: 'U7', at: AT },
        question: true,
      }),
    ).toBe(`:no_entry: This was already answered by <@U7> ${DATE}.`);
    expect(say({ kind: 'nobody_may_approve', rule: 'rules[1]', question: true })).toContain(
      'Nobody may answer this',
    );
  });

  it('says a vote that kept meeting a changed request was not recorded, and to try again', () => {
    expect(say({ kind: 'changed_meanwhile' })).toBe(
      ':no_entry: Others were deciding this at the same moment, and it changed each time your vote was checked. Nothing was recorded; look at the card and try again.',
    );
  });

  it('refuses self-approval', () => {
    expect(say({ kind: 'self_approval' })).toContain(
      'does not let you approve or reject it yourself. To call it off, use Withdraw',
    );
  });

  it('says who may withdraw, and who withdrew a request already', () => {
    expect(say({ kind: 'not_requester', requester: 'U1' })).toContain(
      'Only <@U1>, who asked for this, or a policy admin can withdraw it.',
    );
    expect(
      say({ kind: 'already_decided', state: 'withdrawn', decision: { by: 'U1', at: AT } }),
    ).toContain('This was withdrawn by <@U1>');
  });

  it('says who decided already and when, in Slack date format', () => {
    expect(
      say({ kind: 'already_decided', state: 'approved', decision: { by: 'U7', at: AT } }),
    ).toBe(`:no_entry: This was already approved by <@U7> ${DATE}.`);
    expect(
      say({ kind: 'already_decided', state: 'expired', decision: { by: 'system', at: AT } }),
    ).toBe(`:no_entry: This expired ${DATE} and was rejected automatically.`);
  });

  it('covers a second vote, expiry, a stale card, no approvers and a missing reason', () => {
    expect(say({ kind: 'already_voted', approvals: 1, quorum: 2 })).toContain(
      'It has 1 of 2 approvals.',
    );
    expect(say({ kind: 'expired', expiresAt: AT, onExpiry: 'cancel' })).toBe(
      `:no_entry: Too late: this expired ${DATE} and was cancelled.`,
    );
    expect(say({ kind: 'not_found' })).toContain('no longer pending');
    expect(say({ kind: 'nobody_may_approve', rule: '<!channel>' })).toBe(
      ':no_entry: Nobody may approve this under the current policy (rule `&lt;!channel&gt;`).',
    );
    expect(say({ kind: 'reason_required' })).toContain('asks for a reason');
    expect(say({ kind: 'permission_check_failed' })).toContain('Nothing changed');
    expect(say({ kind: 'decision_failed' })).toContain('was not recorded');
    expect(say({ kind: 'cannot_post_here', code: 'not_in_channel' })).toContain('Invite me first');
    expect(say({ kind: 'cannot_post_here', code: '<!channel>' })).toContain('`&lt;!channel&gt;`');
  });

  it('never turns a malformed user id into a mention', () => {
    expect(
      say({ kind: 'already_decided', state: 'rejected', decision: { by: '<!here>', at: AT } }),
    ).toContain('@&lt;!here&gt;');
  });
});

describe('a late click names how it was decided, in the card’s words (#34)', () => {
  it('a policy’s denial is “denied by policy rule”, an agent’s cancel “cancelled by the agent”', () => {
    expect(
      say({
        kind: 'already_decided',
        state: 'rejected',
        decision: { by: 'policy:no-invoices', at: AT },
      }),
    ).toBe(`:no_entry: This was already denied by policy rule \`no-invoices\` ${DATE}.`);
    expect(
      say({ kind: 'already_decided', state: 'cancelled', decision: { by: 'api:runbook', at: AT } }),
    ).toBe(`:no_entry: This was cancelled by the agent (API key \`runbook\`) ${DATE}.`);
  });
});
