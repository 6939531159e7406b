import { describe, expect, it } from 'vitest';
import type { Delegation } from '../../../src/approvals/delegations.js';
import { ACTION_IDS } from '../../../src/slack/codecs/action-ids.js';
import { renderApprovalCard } from '../../../src/slack/render/approval-card.js';
import {
  DELEGATION_BLOCK_IDS,
  delegationBlocks,
  parseDelegationSubmission,
  renderDelegationModal,
} from '../../../src/slack/render/delegation-view.js';
import { decidedWords } from '../../../src/slack/render/gate-lines.js';
import { gateRecord, NOW, POLICY, pauseView } from '../../support/records.js';
import { allText, buttons, expectValidView } from '../blocks.js';

const HOUR = 3_600_000;
const handOver = (overrides: Partial<Delegation> = {}): Delegation => ({
  delegator: 'UBOB',
  delegate: 'UCAROL',
  startsAt: NOW - HOUR,
  endsAt: NOW + HOUR,
  setAt: NOW - HOUR,
  ...overrides,
});

describe('the App Home’s hand-over while away', () => {
  it('offers to hand over when the person has none, and says who decides for whom', () => {
    const blocks = delegationBlocks({ incoming: [handOver({ delegator: 'UDAVE' })] }, NOW);
    expect(buttons(blocks).map((b) => b.actionId)).toEqual([ACTION_IDS.homeHandOver]);
    expect(allText(blocks)).toContain('You decide for <@UDAVE>');
  });

  it('shows the person’s own hand-over with a button to end it (or call off one not started)', () => {
    const current = delegationBlocks({ outgoing: handOver(), incoming: [] }, NOW);
    expect(allText(current)).toContain('Your approvals go to <@UCAROL> now, until');
    expect(buttons(current).map((b) => b.actionId)).toEqual([ACTION_IDS.homeEndHandOver]);
    const upcoming = delegationBlocks(
      { outgoing: handOver({ startsAt: NOW + HOUR }), incoming: [] },
      NOW,
    );
    expect(allText(upcoming)).toContain('Cancel it');
  });

  it('the modal is valid Block Kit and its submission reads a person and two instants', () => {
    const modal = renderDelegationModal(NOW);
    expectValidView(modal);
    const values = {
      [DELEGATION_BLOCK_IDS.delegate]: { value: { type: 'users_select', selected_user: 'UCAROL' } },
      [DELEGATION_BLOCK_IDS.startsAt]: {
        value: { type: 'datetimepicker', selected_date_time: 100 },
      },
      [DELEGATION_BLOCK_IDS.endsAt]: { value: { type: 'datetimepicker', selected_date_time: 200 } },
    };
    expect(parseDelegationSubmission(values)).toEqual({
      ok: true,
      delegate: 'UCAROL',
      startsAt: 100_000,
      endsAt: 200_000,
    });
    const notAPerson = parseDelegationSubmission({
      ...values,
      [DELEGATION_BLOCK_IDS.delegate]: {
        value: { type: 'users_select', selected_user: '<!here>' },
      },
    });
    expect(notAPerson.ok).toBe(false);
    const missing = parseDelegationSubmission({ ...values, [DELEGATION_BLOCK_IDS.delegate]: {} });
    expect(missing).toEqual({
      ok: false,
      errors: { [DELEGATION_BLOCK_IDS.delegate]: 'Pick who decides for you.' },
    });
  });
});

describe('the card under a hand-over', () => {
  const policy = { ...POLICY, approvers: [{ kind: 'user' as const, id: 'UBOB' }] };
  const standIns = new Map([['UBOB', 'UCAROL']]);

  it('names the stand-in for the approver away: "Carol (for Bob)", unless the rule says delegation: false', () => {
    const view = pauseView([gateRecord({ policy })]);
    const card = renderApprovalCard(view, { now: NOW, standIns });
    expect(allText(card.blocks)).toContain('Who may approve: <@UCAROL> (for <@UBOB>)');
    const strict = pauseView([gateRecord({ policy: { ...policy, delegation: false } })]);
    const strictCard = renderApprovalCard(strict, { now: NOW, standIns });
    expect(allText(strictCard.blocks)).toContain('Who may approve: <@UBOB>');
    expect(allText(strictCard.blocks)).not.toContain('UCAROL');
  });

  it('a decision made for someone says both: "Approved by Carol for Bob"', () => {
    const decision = { by: 'UCAROL', at: NOW, onBehalfOf: 'UBOB' };
    const gate = gateRecord({
      policy,
      state: 'approved',
      votes: [{ voter: 'UCAROL', choice: 'approve', at: NOW, onBehalfOf: 'UBOB' }],
      decision,
    });
    expect(decidedWords(gate, decision)).toBe('Approved by <@UCAROL> for <@UBOB>');
    const rejected = { ...gate, state: 'rejected' as const };
    expect(decidedWords(rejected, decision)).toBe('Rejected by <@UCAROL> for <@UBOB>');
  });
});
