import { describe, expect, it } from 'vitest';
import type { BatchPick } from '../../../src/approvals/outcomes.js';
import {
  BATCH_MAX,
  pickProblems,
  renderBatchConfirmModal,
  renderBatchSelectModal,
} from '../../../src/slack/render/batch-modal.js';
import { batchSummary, renderBatchResultModal } from '../../../src/slack/render/batch-result.js';
import type { HomeGate } from '../../../src/slack/render/home-view.js';
import { gateRecord, POLICY, pauseView } from '../../support/records.js';
import { allText, expectInert, expectValidView } from '../blocks.js';
import { HOSTILE_PIECES } from '../random.js';

function waiting(index: number, overrides: Partial<HomeGate> = {}): HomeGate {
  const view = pauseView([gateRecord({ index })]);
  const [gate] = view.gates;
  if (gate === undefined) throw new Error('no gate');
  return { view, gate, cardPermalink: undefined, ...overrides };
}

const needsReason = { ...POLICY, rule: 'invoices', reasonRequired: true };

describe('the batch modal’s first step', () => {
  it('lists at most 100 calls and says how many more wait', () => {
    const modal = renderBatchSelectModal(Array.from({ length: 130 }, (_, i) => waiting(i)));
    expectValidView(modal);
    expect(allText(modal.blocks)).toContain(
      'The oldest 100 of 130 are listed; decide the other 30 after these, or on their cards.',
    );
    expect(JSON.stringify(modal).match(/"value":"g:/g)).toHaveLength(100);
  });

  it('names, in the reason’s hint, the calls whose rule asks for a reason to reject', () => {
    const modal = renderBatchSelectModal([waiting(0, { policy: needsReason }), waiting(1)]);
    expect(JSON.stringify(modal)).toContain(
      'Needed to reject transfer_money: its rule asks for a reason.',
    );
  });

  it('leaves out calls whose rule in force says batch: false, though recorded otherwise', () => {
    const modal = renderBatchSelectModal([
      waiting(0, { policy: { ...POLICY, batch: false } }),
      waiting(1),
    ]);
    expect(JSON.stringify(modal).match(/"value":"g:/g)).toHaveLength(1);
  });

  it('stops a rejection without a reason where a rule asks for one, and picks the policy now keeps out', () => {
    const picked = [
      waiting(0, { policy: needsReason }),
      waiting(1, { policy: { ...POLICY, rule: 'memos', batch: false } }),
    ];
    expect(pickProblems({ choice: 'reject' }, picked)).toEqual({
      gates:
        'transfer_money: cannot be decided in a batch (the rule in force says batch: false). Leave it out and decide it on its card.',
      reason: 'Give a reason: rejecting transfer_money needs one (rule invoices).',
    });
    expect(pickProblems({ choice: 'reject', reason: 'dup' }, [picked[0] as HomeGate])).toEqual({});
    expect(pickProblems({ choice: 'approve' }, [picked[0] as HomeGate])).toEqual({});
  });

  it('shows hostile tool names and arguments inert in the picker', () => {
    const hostile = HOSTILE_PIECES.join('');
    const item = waiting(0);
    item.gate.originalCall = { ...item.gate.originalCall, name: hostile, args: { note: hostile } };
    const modal = renderBatchSelectModal([item, waiting(1)]);
    expectValidView(modal);
    expectInert(modal.blocks);
  });
});

describe('the batch modal’s confirmation', () => {
  it('says how much an approval counts where a call needs more than one', () => {
    const item = waiting(0);
    item.gate.policy = { ...POLICY, quorum: 2 };
    const modal = renderBatchConfirmModal({ choice: 'approve', gates: [item] });
    expect(allText(modal?.blocks)).toContain('Needs 2 approvals, 0 so far: yours counts as one.');
  });
});

describe('what became of a batch', () => {
  const call = {
    tool: 'transfer_money',
    args: { amount: 5 },
    requester: 'UREQUESTER',
    app: 'payments',
    channelId: 'C0APPROVALS',
  };
  const picks: BatchPick[] = [
    { pauseId: 'p1', callId: 'c1', call, outcome: { kind: 'approved' } },
    { pauseId: 'p2', callId: 'c2', call, outcome: { kind: 'approved' } },
    { pauseId: 'p3', callId: 'c3', call, outcome: { kind: 'counted', approvals: 1, quorum: 2 } },
    {
      pauseId: 'p4',
      callId: 'c4',
      call: { ...call, tool: 'pay_invoice' },
      outcome: { kind: 'refused', refusal: { kind: 'reason_required', rule: 'invoices' } },
    },
    {
      pauseId: 'p5',
      callId: 'c5',
      outcome: { kind: 'refused', refusal: { kind: 'pause_gone' } },
    },
  ];

  it('counts each outcome, then names each call not decided with why', () => {
    expect(batchSummary(picks)).toBe(
      'Of the 5 calls you picked: 2 approved, 1 approval counted (the call waits for more), 2 not decided.',
    );
    const modal = renderBatchResultModal(picks);
    expectValidView(modal);
    const text = allText(modal.blocks);
    expect(text).toMatch(
      /`pay_invoice` .*\namount: 5\n:no_entry: Not decided\. The policy asks for a reason to reject this \(rule `invoices`\)\. Please give one\. It is as it was: see its card in <#C0APPROVALS>\./,
    );
    expect(text).toContain(
      'A call no longer on record\n:no_entry: Not decided. This approval is no longer on record',
    );
    expect(text).toContain(
      ':ballot_box_with_check: Your approval counted: 1 of 2. It waits for more.',
    );
    expect(text.indexOf('Not decided')).toBeLessThan(text.indexOf(':white_check_mark: Approved'));
  });

  it('stays a valid view for a full batch of hostile calls', () => {
    const hostile = HOSTILE_PIECES.join('');
    const full: BatchPick[] = Array.from({ length: BATCH_MAX }, (_, i) => ({
      pauseId: `p${i}`,
      callId: `c${i}`,
      call: { ...call, tool: hostile, args: { note: hostile.repeat(20) }, app: hostile },
      outcome:
        i % 2 === 0
          ? { kind: 'approved' }
          : { kind: 'refused', refusal: { kind: 'not_batchable', rule: hostile } },
    }));
    const modal = renderBatchResultModal(full);
    expectValidView(modal);
    expectInert(modal.blocks);
  });
});
